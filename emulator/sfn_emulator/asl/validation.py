"""Definition diagnostics as Step Functions reports them, and the rules on a machine's transition graph.

A `Diagnostic` is one entry of ValidateStateMachineDefinition's `diagnostics`; CreateStateMachine
joins the ERROR ones into its InvalidDefinition message:
`Invalid State Machine Definition: '<CODE>: <message> at <location>, <CODE>: ...'`, with the literal
`null` for a diagnostic without location (as recorded on AWS).
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from sfn_emulator.asl.json_reading import JsonTextError, read_json

ERROR = "ERROR"
WARNING = "WARNING"

# Codes from the API reference of ValidateStateMachineDefinitionDiagnostic.
INVALID_JSON_DESCRIPTION = "INVALID_JSON_DESCRIPTION"
SCHEMA_VALIDATION_FAILED = "SCHEMA_VALIDATION_FAILED"
MISSING_END_STATE = "MISSING_END_STATE"
DUPLICATE_STATE_NAME = "DUPLICATE_STATE_NAME"
MISSING_TRANSITION_TARGET = "MISSING_TRANSITION_TARGET"
NO_DOLLAR = "NO_DOLLAR"
NO_PATH = "NO_PATH"
PASS_RESULT_IS_STATIC = "PASS_RESULT_IS_STATIC"
INVALID_JSONATA_EXPRESSION = "INVALID_JSONATA_EXPRESSION"
UNSUPPORTED_JSONATA_EXPRESSION = "UNSUPPORTED_JSONATA_EXPRESSION"


class Diagnostic(Struct, frozen=True):
    """One problem found in a definition; `location` is a pointer like `/States/A/Next`, or None."""

    severity: str
    code: str
    message: str
    location: str | None = None

    def to_api(self) -> dict[str, str]:
        """The botocore shape of a ValidateStateMachineDefinitionDiagnostic (location omitted when None)."""
        shape = {"severity": self.severity, "code": self.code, "message": self.message}
        if self.location is not None:
            shape["location"] = self.location
        return shape

    def flattened(self) -> str:
        """This diagnostic as CreateStateMachine prints it inside its InvalidDefinition message."""
        location = self.location if self.location is not None else "null"
        if self.message.endswith(location):  # a JSON syntax error already says where it is
            return f"{self.code}: {self.message}"
        return f"{self.code}: {self.message} at {location}"


def invalid_definition_message(diagnostics: list[Diagnostic]) -> str:
    """CreateStateMachine's InvalidDefinition message naming every ERROR diagnostic."""
    errors = [diagnostic.flattened() for diagnostic in diagnostics if diagnostic.severity == ERROR]
    return f"Invalid State Machine Definition: '{', '.join(errors)}'"


class InvalidDefinitionError(Exception):
    """A definition Step Functions would refuse; `.message` is AWS's InvalidDefinition message."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        self.message = invalid_definition_message(diagnostics)
        super().__init__(self.message)


class Transition(Struct):
    """A state's pointer to another one (`Next`, `Default`, a Choice rule's or a catcher's `Next`)."""

    source: str
    target: str
    location: str  # where the name is written, e.g. /States/C/Choices[0]/Next


class Scope(Struct):
    """The states of one machine, Parallel branch or Map item processor, as the graph rules see them."""

    location: str  # "" for the top level, e.g. /States/P/Branches[0] for a branch
    start_at: str | None
    states: list[str] = field(default_factory=list)
    terminal_states: set[str] = field(default_factory=set)
    transitions: list[Transition] = field(default_factory=list)

    def state_location(self, name: str) -> str:
        return f"{self.location}/States/{name}"


def check_transitions(scope: Scope, *, top_level: bool) -> list[Diagnostic]:
    """Missing targets, then (top level only) a missing terminal state, then unreachable states.

    As measured on AWS: every transition naming a state outside its scope is reported with the word
    `Next` whatever the field; a top-level machine without any terminal state is refused with
    MISSING_END_STATE, which then replaces the reachability report for that level.
    """
    known = set(scope.states)
    found: list[Diagnostic] = []
    if scope.start_at is not None and scope.start_at not in known:
        found.append(_missing_target(scope.start_at, f"{scope.location}/StartAt"))
    found.extend(
        _missing_target(transition.target, transition.location)
        for transition in scope.transitions
        if transition.target not in known
    )
    if top_level and scope.states and not scope.terminal_states:
        found.append(Diagnostic(ERROR, MISSING_END_STATE, "Workflow has no terminal state"))
        return found
    if scope.start_at is None:  # reported as a missing required field
        return found
    reachable = _reachable(scope)
    found.extend(
        Diagnostic(ERROR, MISSING_TRANSITION_TARGET, f'State "{name}" is not reachable.', scope.state_location(name))
        for name in scope.states
        if name not in reachable
    )
    return found


def _missing_target(target: str, location: str) -> Diagnostic:
    return Diagnostic(ERROR, MISSING_TRANSITION_TARGET, f"Missing 'Next' target: {target}", location)


def _reachable(scope: Scope) -> set[str]:
    successors: dict[str, list[str]] = {}
    for transition in scope.transitions:
        successors.setdefault(transition.source, []).append(transition.target)
    if scope.start_at not in scope.states:
        return set()
    reachable = {scope.start_at}
    pending = [scope.start_at]
    while pending:
        for target in successors.get(pending.pop(), ()):
            if target not in reachable:
                reachable.add(target)
                pending.append(target)
    return reachable


# ---------------------------------------------------------------------------------------------
# Definition text -> JSON. AWS parses definitions with Jackson; its syntax errors read like
# "Unrecognized token 'not': was expecting (...)\n at [Source: (String)"not a definition"; line: 1,
# column: 4]", the bracketed part doubling as the diagnostic's location.

NESTED_TOO_DEEPLY = "Definition is nested too deeply"
_SOURCE_EXCERPT_LIMIT = 500  # Jackson quotes at most this many characters of the source


class _DuplicateKeys(dict):
    """An object in which some key appeared more than once (JSON keeps the last value)."""

    duplicate_keys: tuple[str, ...] = ()


def duplicate_keys(value: Any) -> tuple[str, ...]:
    """The keys that appeared more than once in the decoded JSON object `value`."""
    return getattr(value, "duplicate_keys", ())


def decode_definition(text: str) -> tuple[Any, Diagnostic | None]:
    """The JSON value of a definition text, or the diagnostic AWS gives for text that is not JSON."""
    try:
        return read_json(text, object_pairs_hook=_object_keeping_duplicates), None
    except JsonTextError as problem:
        if problem.offset is None:
            return None, Diagnostic(ERROR, INVALID_JSON_DESCRIPTION, NESTED_TOO_DEEPLY)
        return None, _syntax_diagnostic(text, problem.message, problem.offset)


def _object_keeping_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    seen: set[str] = set()
    repeated = tuple(dict.fromkeys(key for key, _ in pairs if key in seen or seen.add(key)))
    marked = _DuplicateKeys(value)
    marked.duplicate_keys = repeated
    return marked


def _syntax_diagnostic(text: str, message: str, offset: int) -> Diagnostic:
    """Jackson's `[Source: ...; line: L, column: C]` for the character just after `offset`."""
    before = text[:offset]
    line = before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1) + 1
    excerpt = f'(String)"{text[:_SOURCE_EXCERPT_LIMIT]}"'
    if len(text) > _SOURCE_EXCERPT_LIMIT:
        excerpt += f"[truncated {len(text) - _SOURCE_EXCERPT_LIMIT} chars]"
    location = f"[Source: {excerpt}; line: {line}, column: {column}]"
    return Diagnostic(ERROR, INVALID_JSON_DESCRIPTION, f"{message}\n at {location}", location)
