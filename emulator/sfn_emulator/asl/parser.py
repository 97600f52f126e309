"""Parse and validate Amazon States Language definitions into the immutable model (`sfn_emulator.asl.model`).

Every problem is collected before failing, as Step Functions does: `parse_definition` raises one
`InvalidDefinitionError` naming all of them, `validate_definition` returns them as diagnostics.
Every path, payload template, intrinsic call and Choice rule is compiled here, once; running a
state parses nothing.

The diagnostic texts are AWS's where they are on record (see fixtures/definitions/ for the
sources); the rest follow the same forms."""

from __future__ import annotations

from typing import Any, Mapping

from msgspec import UNSET

from sfn_emulator.asl.model import JSONPATH, State, StateMachine
from sfn_emulator.asl.parsing.field_table import STATE_MACHINE
from sfn_emulator.asl.parsing.machines import Parser
from sfn_emulator.asl.parsing.rules import MAX_DIAGNOSTICS, STANDARD, schema_error
from sfn_emulator.asl.validation import (
    ERROR,
    INVALID_JSON_DESCRIPTION,
    NESTED_TOO_DEEPLY,
    WARNING,
    Diagnostic,
    InvalidDefinitionError,
    Scope,
    decode_definition,
)


__all__ = [
    "Diagnostic",
    "InvalidDefinitionError",
    "parse_definition",
    "parse_single_state",
    "validate_definition",
]


# ---------------------------------------------------------------------------------------------
# Public API


def parse_definition(text: str, *, state_machine_type: str = STANDARD, document: Any = UNSET) -> StateMachine:
    """The model of a definition text, or `InvalidDefinitionError` listing every problem in it.
    `document`: the text's JSON value when the caller has decoded it already (`decode_definition`)."""
    machine, diagnostics = _parse(text, state_machine_type, document)
    if machine is None or _has_errors(diagnostics):
        raise InvalidDefinitionError([d for d in diagnostics if d.severity == ERROR])
    return machine


def validate_definition(
    text: str,
    *,
    state_machine_type: str = STANDARD,
    severity: str = ERROR,
    max_results: int = MAX_DIAGNOSTICS,
    document: Any = UNSET,
) -> list[Diagnostic]:
    """ValidateStateMachineDefinition's diagnostics: ERRORs, plus WARNINGs when `severity` is WARNING.

    At most `max_results` are returned (0 means the default, 100); ask for one more than you show
    to learn whether the list was truncated. `document` as for `parse_definition`.
    """
    _, diagnostics = _parse(text, state_machine_type, document)
    if severity != WARNING:
        diagnostics = [diagnostic for diagnostic in diagnostics if diagnostic.severity == ERROR]
    return diagnostics[: max_results or MAX_DIAGNOSTICS]


def parse_single_state(
    definition: Mapping[str, Any] | str, *, name: str = "StateName", state_machine_type: str = STANDARD
) -> State:
    """The model of one state's definition, as the TestState API takes it.

    The state stands alone: its `Next` and its catchers' targets may name states that do not exist.
    AWS calls such a state "StateName" (`$$.State.Name`, recorded), and locates its diagnostics as in a
    machine holding it: `/States/StateName/Branches` (recorded).
    """
    parser = Parser(state_machine_type)
    if isinstance(definition, str):
        value, problem = decode_definition(definition)
        if problem is not None:
            raise InvalidDefinitionError([problem])
    else:
        value = definition
    if not isinstance(value, dict):
        raise InvalidDefinitionError([schema_error("Definition must be a valid JSON object", None)])
    try:
        state = parser.states.state(name, value, f"/States/{name}", Scope("", None), JSONPATH)
    except RecursionError:  # the compilers walk templates recursively
        raise InvalidDefinitionError([_too_deep()]) from None
    if state is None or _has_errors(parser.diagnostics):
        raise InvalidDefinitionError([d for d in parser.diagnostics if d.severity == ERROR])
    return state


def _parse(text: str, state_machine_type: str, document: Any) -> tuple[StateMachine | None, list[Diagnostic]]:
    if not isinstance(text, str) or not text.strip():
        return None, [schema_error("Definition must be a valid JSON object", None)]
    value, problem = decode_definition(text) if document is UNSET else (document, None)
    if problem is not None:
        return None, [problem]
    if not isinstance(value, dict):
        return None, [schema_error("Definition must be a valid JSON object", None)]
    parser = Parser(state_machine_type)
    try:
        machine = parser.machine(value, "", kind=STATE_MACHINE, query_language=JSONPATH)
    except RecursionError:  # the compilers walk templates recursively
        return None, [_too_deep()]
    return machine, parser.diagnostics


def _too_deep() -> Diagnostic:
    return Diagnostic(ERROR, INVALID_JSON_DESCRIPTION, NESTED_TOO_DEEPLY)


def _has_errors(diagnostics: list[Diagnostic]) -> bool:
    return any(diagnostic.severity == ERROR for diagnostic in diagnostics)
