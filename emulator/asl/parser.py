"""Parse and validate Amazon States Language definitions into the immutable model (`sfn_emulator.asl.model`).

Every problem is collected before failing, as Step Functions does: `parse_definition` raises one
`InvalidDefinitionError` naming all of them, `validate_definition` returns them as diagnostics.
Every path, payload template, intrinsic call and Choice rule is compiled here, once; running a
state parses nothing.

The diagnostic texts are AWS's where they are on record (see tests/fixtures/definitions/ for the
sources); the rest follow the same forms.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping

from sfn_emulator.asl.arns import Arn, split_arn
from sfn_emulator.asl.choice import ChoiceRuleError, compile_choice_rule
from sfn_emulator.asl.intrinsics import IntrinsicSyntaxError, compile_intrinsic
from sfn_emulator.asl.jsonata_expressions import (
    ARRAY,
    BOOLEAN,
    INTEGER,
    NON_NEGATIVE_INTEGER,
    NUMBER,
    POSITIVE_INTEGER,
    STRING,
    Constant,
    JsonataCondition,
    JsonataSyntaxError,
    ResultType,
    compile_jsonata_template,
    compile_typed_jsonata,
    is_jsonata,
)
from sfn_emulator.asl.model import (
    JSONATA,
    JSONPATH,
    Catcher,
    ChoiceBranch,
    ChoiceState,
    Expression,
    FailState,
    ItemBatcher,
    ItemReader,
    MapState,
    ParallelState,
    PassState,
    ReaderConfig,
    Retrier,
    ResultPath,
    ResultWriter,
    State,
    StateMachine,
    SucceedState,
    TaskState,
    WaitState,
)
from sfn_emulator.asl.paths import InvalidPath, compile_path, compile_reference_path, compile_result_path, is_path_text
from sfn_emulator.asl.payload import TemplateError, compile_template
from sfn_emulator.asl.state_names import state_name_problem
from sfn_emulator.asl.timestamps import is_timestamp
from sfn_emulator.asl.validation import (
    DUPLICATE_STATE_NAME,
    ERROR,
    INVALID_JSON_DESCRIPTION,
    NESTED_TOO_DEEPLY,
    NO_DOLLAR,
    NO_PATH,
    PASS_RESULT_IS_STATIC,
    SCHEMA_VALIDATION_FAILED,
    WARNING,
    Diagnostic,
    InvalidDefinitionError,
    Scope,
    Transition,
    check_transitions,
    decode_definition,
    duplicate_keys,
)

__all__ = [
    "Diagnostic",
    "InvalidDefinitionError",
    "parse_definition",
    "parse_single_state",
    "validate_definition",
]

STANDARD = "STANDARD"
EXPRESS = "EXPRESS"

_STATE_TYPES = ("Task", "Wait", "Pass", "Succeed", "Fail", "Choice", "Parallel", "Map")
_QUERY_LANGUAGES = (JSONPATH, JSONATA)
_MAX_SECONDS = 99999999  # the largest TimeoutSeconds, HeartbeatSeconds, Wait Seconds... AWS accepts
_MAX_DIAGNOSTICS = 100  # ValidateStateMachineDefinition's default maxResults

_TOP_LEVEL_FIELDS = frozenset({"Comment", "StartAt", "States", "TimeoutSeconds", "Version", "QueryLanguage"})
_BRANCH_FIELDS = frozenset({"Comment", "StartAt", "States"})
_ITEM_PROCESSOR_FIELDS = frozenset({"Comment", "StartAt", "States", "ProcessorConfig"})

_COMMON_FIELDS = frozenset({"Type", "Comment", "QueryLanguage"})
_ASSIGNING_TYPES = ("Pass", "Task", "Choice", "Wait", "Parallel", "Map")  # the states that take Assign
_IO = frozenset({"InputPath", "OutputPath"})
_FLOW = frozenset({"Next", "End"})
_STATE_FIELDS: dict[str, frozenset[str]] = {
    "Pass": _FLOW | _IO | {"Parameters", "Result", "ResultPath"},
    "Task": _FLOW | _IO | {
        "Resource", "Parameters", "ResultSelector", "ResultPath", "Retry", "Catch", "Credentials",
        "TimeoutSeconds", "TimeoutSecondsPath", "HeartbeatSeconds", "HeartbeatSecondsPath",
    },
    "Choice": _IO | {"Choices", "Default"},
    "Wait": _FLOW | _IO | {"Seconds", "SecondsPath", "Timestamp", "TimestampPath"},
    "Succeed": _IO,
    "Fail": frozenset({"Error", "ErrorPath", "Cause", "CausePath"}),
    "Parallel": _FLOW | _IO | {"Branches", "Parameters", "ResultSelector", "ResultPath", "Retry", "Catch"},
    "Map": _FLOW | _IO | {
        "ItemProcessor", "Iterator", "ItemsPath", "ItemSelector", "Parameters", "ItemReader", "ItemBatcher",
        "ResultWriter", "MaxConcurrency", "MaxConcurrencyPath", "ToleratedFailurePercentage",
        "ToleratedFailurePercentagePath", "ToleratedFailureCount", "ToleratedFailureCountPath", "Label",
        "ResultSelector", "ResultPath", "Retry", "Catch",
    },
}
# Fields of the JSONata query language, by the state types that take them there.
_JSONATA_FIELDS: dict[str, tuple[str, ...]] = {
    "Pass": ("Output",),
    "Task": ("Arguments", "Output"),
    "Choice": ("Output",),
    "Wait": ("Output",),
    "Succeed": ("Output",),
    "Fail": (),
    "Parallel": ("Arguments", "Output"),
    "Map": ("Items", "Output"),
}
# The fields of each state type in the JSONata query language.
_JSONATA_STATE_FIELDS: dict[str, frozenset[str]] = {
    "Pass": _FLOW | {"Output"},
    "Task": _FLOW | {
        "Resource", "Arguments", "Output", "Retry", "Catch", "Credentials", "TimeoutSeconds", "HeartbeatSeconds",
    },
    "Choice": frozenset({"Choices", "Default", "Output"}),
    "Wait": _FLOW | {"Seconds", "Timestamp", "Output"},
    "Succeed": frozenset({"Output"}),
    "Fail": frozenset({"Error", "Cause"}),
    "Parallel": _FLOW | {"Branches", "Arguments", "Output", "Retry", "Catch"},
    "Map": _FLOW | {
        "ItemProcessor", "Iterator", "Items", "ItemSelector", "ItemReader", "ItemBatcher", "ResultWriter",
        "MaxConcurrency", "ToleratedFailurePercentage", "ToleratedFailureCount", "Label", "Output", "Retry", "Catch",
    },
}
# Fields of the JSONPath query language that a JSONata state may not have.
_JSONPATH_ONLY_FIELDS = (
    "InputPath", "Parameters", "ResultSelector", "ResultPath", "OutputPath", "ItemsPath", "SecondsPath",
    "TimestampPath", "TimeoutSecondsPath", "HeartbeatSecondsPath", "MaxConcurrencyPath",
    "ToleratedFailurePercentagePath", "ToleratedFailureCountPath", "ErrorPath", "CausePath", "Result",
)
_MAX_VARIABLE_NAME_LENGTH = 80
_RESERVED_VARIABLE = "states"
_TERMINAL_TYPES = ("Succeed", "Fail")  # a tuple: membership tests may meet unhashable JSON values
_RETRIER_FIELDS = frozenset({
    "ErrorEquals", "IntervalSeconds", "MaxAttempts", "BackoffRate", "MaxDelaySeconds", "JitterStrategy", "Comment",
})
_CATCHER_FIELDS = frozenset({"ErrorEquals", "Next", "ResultPath", "Comment", "Assign"})
_JSONATA_CATCHER_FIELDS = frozenset({"ErrorEquals", "Next", "Output", "Comment", "Assign"})
_PROCESSOR_CONFIG_FIELDS = frozenset({"Mode", "ExecutionType"})
_ITEM_READER_FIELDS = frozenset({"Resource", "Parameters", "ReaderConfig"})
_JSONATA_ITEM_READER_FIELDS = frozenset({"Resource", "Arguments", "ReaderConfig"})
_READER_CONFIG_FIELDS = frozenset({
    "InputType", "CSVHeaderLocation", "CSVHeaders", "CSVDelimiter", "MaxItems", "MaxItemsPath", "ItemsPointer",
    "Transformation", "ManifestType",
})
_READER_INPUT_TYPES = ("CSV", "JSON", "JSONL", "MANIFEST", "PARQUET")
_CSV_DELIMITERS = ("COMMA", "PIPE", "SEMICOLON", "SPACE", "TAB")
_MAX_ITEMS = 100_000_000  # AWS reads no more items than this
_ITEM_READER_RESOURCES = ("arn:aws:states:::s3:getObject", "arn:aws:states:::s3:listObjectsV2")
_ITEM_BATCHER_FIELDS = frozenset({
    "MaxItemsPerBatch", "MaxItemsPerBatchPath", "MaxInputBytesPerBatch", "MaxInputBytesPerBatchPath", "BatchInput",
})
_JSONATA_ITEM_BATCHER_FIELDS = frozenset({"MaxItemsPerBatch", "MaxInputBytesPerBatch", "BatchInput"})
_RESULT_WRITER_FIELDS = frozenset({"Resource", "Parameters", "WriterConfig"})
_JSONATA_RESULT_WRITER_FIELDS = frozenset({"Resource", "Arguments", "WriterConfig"})
_WRITER_CONFIG_FIELDS = frozenset({"Transformation", "OutputType"})
_RESULT_WRITER_RESOURCES = ("arn:aws:states:::s3:putObject",)
_PROCESSOR_MODES = ("INLINE", "DISTRIBUTED")
_EXECUTION_TYPES = (STANDARD, EXPRESS)
_JITTER_STRATEGIES = ("FULL", "NONE")
_WAIT_DURATION_FIELDS = ("Seconds", "SecondsPath", "Timestamp", "TimestampPath")
# The optimized integrations of the services whose every action AWS's developer guide lists; a Task
# resource naming another action of theirs is refused (any other call goes through `aws-sdk:`).
_OPTIMIZED_ACTIONS: dict[str, frozenset[str]] = {
    "dynamodb": frozenset({"getItem", "putItem", "updateItem", "deleteItem"}),
    "sqs": frozenset({"sendMessage"}),
    "sns": frozenset({"publish"}),
    "events": frozenset({"putEvents"}),
    "lambda": frozenset({"invoke"}),
    "states": frozenset({"startExecution"}),
    "http": frozenset({"invoke"}),
}
# The HTTP Task's required parameters ("Call HTTPS APIs in Step Functions workflows"), each with the
# names a JSONPath state may give it (a static value, or `.$` to take it from the data).
_HTTP_TASK_RESOURCE = "invoke"
_HTTP_TASK_REQUIRED = (("ApiEndpoint",), ("Method",), ("Authentication", "InvocationConfig"))
_ALL_ERRORS = "States.ALL"

# JSON types as AWS names them in "Expected value of type [...]".
_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "STRING": lambda value: isinstance(value, str),
    "INTEGER": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "NUMBER": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
    "BOOLEAN": lambda value: isinstance(value, bool),
    "OBJECT": lambda value: isinstance(value, dict),
    "ARRAY": lambda value: isinstance(value, list),
}
_ABSENT = object()
_EMPTY = "Value cannot be empty"  # AWS's text for an empty States, Choices, Branches or ErrorEquals (recorded: Branches)


# ---------------------------------------------------------------------------------------------
# Public API


def parse_definition(text: str, *, state_machine_type: str = STANDARD) -> StateMachine:
    """The model of a definition text, or `InvalidDefinitionError` listing every problem in it."""
    machine, diagnostics = _parse(text, state_machine_type)
    if machine is None or _has_errors(diagnostics):
        raise InvalidDefinitionError([d for d in diagnostics if d.severity == ERROR])
    return machine


def validate_definition(
    text: str,
    *,
    state_machine_type: str = STANDARD,
    severity: str = ERROR,
    max_results: int = _MAX_DIAGNOSTICS,
) -> list[Diagnostic]:
    """ValidateStateMachineDefinition's diagnostics: ERRORs, plus WARNINGs when `severity` is WARNING.

    At most `max_results` are returned (0 means the default, 100); ask for one more than you show
    to learn whether the list was truncated.
    """
    _, diagnostics = _parse(text, state_machine_type)
    if severity != WARNING:
        diagnostics = [diagnostic for diagnostic in diagnostics if diagnostic.severity == ERROR]
    return diagnostics[: max_results or _MAX_DIAGNOSTICS]


def parse_single_state(
    definition: Mapping[str, Any] | str, *, name: str = "StateName", state_machine_type: str = STANDARD
) -> State:
    """The model of one state's definition, as the TestState API takes it.

    The state stands alone: its `Next` and its catchers' targets may name states that do not exist.
    AWS calls such a state "StateName" (`$$.State.Name`, recorded), and locates its diagnostics as in a
    machine holding it: `/States/StateName/Branches` (recorded).
    """
    parser = _Parser(state_machine_type)
    if isinstance(definition, str):
        value, problem = decode_definition(definition)
        if problem is not None:
            raise InvalidDefinitionError([problem])
    else:
        value = definition
    if not isinstance(value, dict):
        raise InvalidDefinitionError([_schema("Definition must be a valid JSON object", None)])
    try:
        state = parser.state(name, value, f"/States/{name}", Scope("", None), JSONPATH)
    except RecursionError:  # the compilers walk templates recursively
        raise InvalidDefinitionError([_too_deep()]) from None
    if state is None or _has_errors(parser.diagnostics):
        raise InvalidDefinitionError([d for d in parser.diagnostics if d.severity == ERROR])
    return state


def _parse(text: str, state_machine_type: str) -> tuple[StateMachine | None, list[Diagnostic]]:
    if not isinstance(text, str) or not text.strip():
        return None, [_schema("Definition must be a valid JSON object", None)]
    value, problem = decode_definition(text)
    if problem is not None:
        return None, [problem]
    if not isinstance(value, dict):
        return None, [_schema("Definition must be a valid JSON object", None)]
    parser = _Parser(state_machine_type)
    try:
        machine = parser.machine(value, "", kind="top", query_language=JSONPATH)
    except RecursionError:  # the compilers walk templates recursively
        return None, [_too_deep()]
    return machine, parser.diagnostics


def _too_deep() -> Diagnostic:
    return Diagnostic(ERROR, INVALID_JSON_DESCRIPTION, NESTED_TOO_DEEPLY)


def _has_errors(diagnostics: list[Diagnostic]) -> bool:
    return any(diagnostic.severity == ERROR for diagnostic in diagnostics)


def _schema(message: str, location: str | None) -> Diagnostic:
    return Diagnostic(ERROR, SCHEMA_VALIDATION_FAILED, message, location)


def _list(names: Iterator[str] | tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(names) + "]"


# ---------------------------------------------------------------------------------------------
# The parser


class _Parser:
    """One pass over a definition: builds the model and records every diagnostic on the way.

    Each `state`/`machine` method returns None when it found an error in its part (the
    diagnostics say why); the caller keeps going so that every problem gets reported.
    """

    def __init__(self, state_machine_type: str) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.express = state_machine_type == EXPRESS
        self.state_names: set[str] = set()  # of the whole machine, branches and item processors included
        self.machine_language = JSONPATH  # what states, nested ones included, inherit
        self.language = JSONPATH  # of the state being built

    # -- recording ------------------------------------------------------------------------------

    def error(self, message: str, location: str | None, code: str = SCHEMA_VALIDATION_FAILED) -> None:
        self.diagnostics.append(Diagnostic(ERROR, code, message, location))

    def warning(self, code: str, message: str, location: str | None) -> None:
        self.diagnostics.append(Diagnostic(WARNING, code, message, location))

    def error_count(self) -> int:
        return sum(1 for diagnostic in self.diagnostics if diagnostic.severity == ERROR)

    # -- machines -------------------------------------------------------------------------------

    def machine(self, value: Any, location: str, *, kind: str, query_language: str) -> StateMachine | None:
        """A whole definition (`kind` "top"), a Parallel branch ("branch") or a Map item processor ("processor")."""
        errors_before = self.error_count()
        here = location or "/"
        if not isinstance(value, dict):
            self.error("Expected value of type [OBJECT]", here)
            return None
        allowed = {"top": _TOP_LEVEL_FIELDS, "branch": _BRANCH_FIELDS, "processor": _ITEM_PROCESSOR_FIELDS}[kind]
        missing = [name for name in ("States", "StartAt") if name not in value]
        if missing:
            self.error(f"These fields are required: {_list(missing)}", here)
        self.unknown_fields(value, allowed, here)

        start_at = self.typed(value, "StartAt", "STRING", location)
        comment = self.typed(value, "Comment", "STRING", location)
        timeout_seconds = version = None
        if kind == "top":
            query_language = self.query_language(value, location, inherited=None) or JSONPATH
            self.machine_language = query_language
            timeout_seconds = self.integer(value, "TimeoutSeconds", location, minimum=0, maximum=_MAX_SECONDS)
            version = self.typed(value, "Version", "STRING", location)

        states = self.typed(value, "States", "OBJECT", location)
        scope = Scope(location, start_at if isinstance(start_at, str) else None)
        parsed: dict[str, State] = {}
        if isinstance(states, dict):
            if not states:
                self.error(_EMPTY, f"{location}/States")
            for name in duplicate_keys(states):
                self.error(f"Duplicate State name: {name}", f"{location}/States/{name}", DUPLICATE_STATE_NAME)
            for name, definition in states.items():
                state_location = f"{location}/States/{name}"
                self.register_name(name, state_location)
                scope.states.append(name)
                state = self.state(name, definition, state_location, scope, query_language)
                if state is not None:
                    parsed[name] = state
            self.diagnostics.extend(check_transitions(scope, top_level=kind == "top"))

        if self.error_count() > errors_before or not isinstance(start_at, str):
            return None
        return StateMachine(
            start_at=start_at,
            states=parsed,
            query_language=query_language,
            timeout_seconds=timeout_seconds,
            comment=comment,
            version=version,
            raw=value,
        )

    def register_name(self, name: str, location: str) -> None:
        """State names are unique in the whole machine, branches and item processors included."""
        if (problem := state_name_problem(name, location)) is not None:
            self.diagnostics.append(problem)
        if name in self.state_names:
            self.error(f"Duplicate State name: {name}", location, DUPLICATE_STATE_NAME)
        self.state_names.add(name)

    def query_language(self, value: dict, location: str, *, inherited: str | None) -> str | None:
        """The declared QueryLanguage (checked), or `inherited` when there is none."""
        declared = value.get("QueryLanguage", _ABSENT)
        if declared is _ABSENT:
            return inherited
        here = f"{location}/QueryLanguage"
        if not isinstance(declared, str):
            self.error("Expected value of type [STRING]", here)
            return inherited
        if declared not in _QUERY_LANGUAGES:
            self.error(f"Value should be one of the following: {_list(_QUERY_LANGUAGES)}", here)
            return inherited
        if declared == JSONPATH and inherited == JSONATA:
            self.error("'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine", location)
        return declared

    # -- states ---------------------------------------------------------------------------------

    def state(self, name: str, value: Any, location: str, scope: Scope, machine_language: str) -> State | None:
        errors_before = self.error_count()
        here = location or "/"
        if not isinstance(value, dict):
            self.error("Expected value of type [OBJECT]", here)
            return None
        state_type = value.get("Type")
        if state_type not in _STATE_TYPES:
            if "Type" not in value:
                self.error("These fields are required: [Type]", here)
            else:
                self.error(f"The field 'Type' should have one of these values: {_list(_STATE_TYPES)}", f"{location}/Type")
            self.record_flow_of_unchecked_state(name, value, location, scope)
            return None

        query_language = self.query_language(value, location, inherited=machine_language) or JSONPATH
        self.language = query_language
        assigning = {"Assign"} if state_type in _ASSIGNING_TYPES else set()
        if query_language == JSONATA:
            misplaced = [field for field in _JSONPATH_ONLY_FIELDS if field in value]
            allowed = _JSONATA_STATE_FIELDS[state_type]
            other_language = "JSONPath"
        else:
            misplaced = [field for field in _JSONATA_FIELDS[state_type] if field in value]
            allowed = _STATE_FIELDS[state_type]
            other_language = "JSONata"
        for field in misplaced:
            self.error(
                f"The QueryLanguage is set to '{query_language}', but field '{field}' is only supported "
                f"for the '{other_language}' QueryLanguage",
                here,
            )
        self.unknown_fields(value, _COMMON_FIELDS | allowed | assigning | set(misplaced), here)

        common = {
            "name": name,
            "type": state_type,
            "query_language": query_language,
            "comment": self.typed(value, "Comment", "STRING", location),
            "assign": self.assign(value, location),
        }
        if query_language == JSONATA:
            common["output"] = self.jsonata_template(value, "Output", location)
        else:
            common["input_path"] = self.path(value, "InputPath", location, compile_path)
            common["output_path"] = self.path(value, "OutputPath", location, compile_path)
        if state_type in _TERMINAL_TYPES:
            scope.terminal_states.add(name)
        elif state_type != "Choice":
            common.update(self.next_or_end(name, value, location, scope))

        build = getattr(self, f"_{state_type.lower()}")
        specific = build(name, value, location, scope)
        self.language = query_language  # again: a Parallel's or Map's nested states set their own
        if self.error_count() > errors_before or specific is None:
            return None
        return specific(**common)

    def record_flow_of_unchecked_state(self, name: str, value: dict, location: str, scope: Scope) -> None:
        """Keep a state this parser does not check (unknown type, JSONata) in the transition graph,
        so that its own diagnostic is not echoed as missing targets or unreachable states."""
        targets = [(value.get("Next"), f"{location}/Next"), (value.get("Default"), f"{location}/Default")]
        for field in ("Choices", "Catch"):
            items = value.get(field)
            if isinstance(items, list):
                targets.extend(
                    (item.get("Next"), f"{location}/{field}[{index}]/Next")
                    for index, item in enumerate(items)
                    if isinstance(item, dict)
                )
        scope.transitions.extend(
            Transition(name, target, where) for target, where in targets if isinstance(target, str)
        )
        if value.get("End") is True or value.get("Type") in _TERMINAL_TYPES:
            scope.terminal_states.add(name)

    def next_or_end(self, name: str, value: dict, location: str, scope: Scope) -> dict[str, Any]:
        next_state = self.typed(value, "Next", "STRING", location)
        end = self.typed(value, "End", "BOOLEAN", location)
        if (next_state is not None) == (end is True):
            self.error("Exactly one of these fields must be present: [Next, End]", location or "/")
        if isinstance(next_state, str):
            scope.transitions.append(Transition(name, next_state, f"{location}/Next"))
        if end is True:
            scope.terminal_states.add(name)
        return {"next": next_state, "end": end is True}

    # Each builder below checks its type's own fields and returns a constructor taking the common
    # fields, or None. `value` is the state's JSON object.

    def _pass(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        if self.language == JSONATA:
            return PassState
        parameters = self.template(value, "Parameters", location)
        result_path = self.result_path(value, location)
        has_result = "Result" in value
        if has_result and any(True for _ in _dollar_keys(value["Result"])):
            self.warning(
                PASS_RESULT_IS_STATIC,
                "The 'Result' of a Pass state is static: its fields ending in '.$' are not evaluated",
                f"{location}/Result",
            )
        return lambda **common: PassState(
            **common, parameters=parameters, result=value.get("Result"), has_result=has_result, result_path=result_path
        )

    def _task(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        resource = self.typed(value, "Resource", "STRING", location)
        if "Resource" not in value:
            self.error("These fields are required: [Resource]", location or "/")
        elif isinstance(resource, str):
            self.check_resource(resource, f"{location}/Resource")
        parameters = self.arguments_or_parameters(value, location)
        if isinstance(resource, str) and _is_http_task(resource):
            self.http_task_parameters(value, location)
        result_selector = self.template(value, "ResultSelector", location)
        credentials = self.credentials(value, location)
        result_path = self.result_path(value, location)
        retry = self.retriers(value, location)
        catch = self.catchers(name, value, location, scope)
        self.at_most_one(value, "Task", ("TimeoutSeconds", "TimeoutSecondsPath"), location)
        self.at_most_one(value, "Task", ("HeartbeatSeconds", "HeartbeatSecondsPath"), location)
        timeout_seconds_expression = self.jsonata_field(value, "TimeoutSeconds", location, POSITIVE_INTEGER)
        heartbeat_seconds_expression = self.jsonata_field(value, "HeartbeatSeconds", location, POSITIVE_INTEGER)
        timeout_seconds = heartbeat_seconds = None
        if timeout_seconds_expression is None:
            timeout_seconds = self.integer(value, "TimeoutSeconds", location, minimum=1, maximum=_MAX_SECONDS)
        if heartbeat_seconds_expression is None:
            heartbeat_seconds = self.integer(value, "HeartbeatSeconds", location, minimum=1, maximum=_MAX_SECONDS)
        if isinstance(timeout_seconds, int) and isinstance(heartbeat_seconds, int) and heartbeat_seconds >= timeout_seconds:
            self.error(
                "The value for the field 'HeartbeatSeconds' must be smaller than the value for the field 'TimeoutSeconds'",
                f"{location}/HeartbeatSeconds",
            )
        timeout_seconds_path = self.path(value, "TimeoutSecondsPath", location, compile_reference_path, nullable=False)
        heartbeat_seconds_path = self.path(value, "HeartbeatSecondsPath", location, compile_reference_path, nullable=False)
        return lambda **common: TaskState(
            **common,
            resource=resource,
            parameters=parameters,
            result_selector=result_selector,
            result_path=result_path,
            retry=retry,
            catch=catch,
            timeout_seconds=timeout_seconds,
            timeout_seconds_path=timeout_seconds_path,
            heartbeat_seconds=heartbeat_seconds,
            heartbeat_seconds_path=heartbeat_seconds_path,
            timeout_seconds_expression=timeout_seconds_expression,
            heartbeat_seconds_expression=heartbeat_seconds_expression,
            credentials=credentials,
        )

    def _choice(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        default = self.typed(value, "Default", "STRING", location)
        if isinstance(default, str):
            scope.transitions.append(Transition(name, default, f"{location}/Default"))
        if "Choices" not in value:
            self.error("These fields are required: [Choices]", location or "/")
            return None
        rules = self.typed(value, "Choices", "ARRAY", location)
        if not isinstance(rules, list):
            return None
        if not rules:
            self.error(_EMPTY, f"{location}/Choices")
        branches = [self.choice_branch(name, rule, f"{location}/Choices[{index}]", scope) for index, rule in enumerate(rules)]
        if any(branch is None for branch in branches):
            return None
        return lambda **common: ChoiceState(**common, choices=tuple(branches), default=default)

    def choice_branch(self, name: str, rule: Any, location: str, scope: Scope) -> ChoiceBranch | None:
        if not isinstance(rule, dict):
            self.error("Expected value of type [OBJECT]", location)
            return None
        next_state = self.typed(rule, "Next", "STRING", location)
        if "Next" not in rule:
            self.error("These fields are required: [Next]", location)
        elif isinstance(next_state, str):
            scope.transitions.append(Transition(name, next_state, f"{location}/Next"))
        comment = self.typed(rule, "Comment", "STRING", location)
        assign = self.assign(rule, location)
        output = None
        if self.language == JSONATA:
            self.unknown_fields(rule, {"Condition", "Next", "Comment", "Assign", "Output"}, location)
            output = self.jsonata_template(rule, "Output", location)
            condition = self.jsonata_condition(rule, location)
            if condition is None:
                return None
        else:
            if "Output" in rule:
                self.error("The QueryLanguage is set to 'JSONPath', but field 'Output' is only supported "
                           "for the 'JSONata' QueryLanguage", location)
            condition_fields = {key: item for key, item in rule.items() if key not in ("Next", "Comment", "Assign", "Output")}
            try:
                condition = compile_choice_rule(condition_fields, location=location)
            except ChoiceRuleError as problem:
                self.error(problem.message, problem.location)
                return None
        if not isinstance(next_state, str):
            return None
        return ChoiceBranch(condition=condition, next=next_state, assign=assign, output=output, comment=comment)

    def jsonata_condition(self, rule: dict, location: str) -> JsonataCondition | None:
        """A JSONata Choice rule's Condition: an expression that must evaluate to a boolean."""
        if "Condition" not in rule:
            self.error("These fields are required: [Condition]", location)
            return None
        text = rule["Condition"]
        if isinstance(text, bool):
            return JsonataCondition(Constant(text))
        if not is_jsonata(text):
            self.error("The value for the field 'Condition' must be a boolean or a JSONata expression: '{% ... %}'",
                       f"{location}/Condition")
            return None
        try:
            return JsonataCondition(compile_typed_jsonata(text, "Condition", BOOLEAN))
        except JsonataSyntaxError as problem:
            self.error(problem.message, f"{location}/Condition")
            return None

    def _wait(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        present = [field for field in _WAIT_DURATION_FIELDS if field in value]
        if len(present) != 1:
            self.error(f"Exactly one of these fields must be present: {_list(_WAIT_DURATION_FIELDS)}", location or "/")
        seconds_expression = self.jsonata_field(value, "Seconds", location, NON_NEGATIVE_INTEGER)
        timestamp_expression = self.jsonata_field(value, "Timestamp", location, STRING)
        seconds = timestamp = None
        if seconds_expression is None:
            seconds = self.integer(value, "Seconds", location, minimum=0, maximum=_MAX_SECONDS)
        if timestamp_expression is None:
            timestamp = self.typed(value, "Timestamp", "STRING", location)
        if isinstance(timestamp, str) and not is_timestamp(timestamp):
            self.error("String does not match RFC3339 timestamp", f"{location}/Timestamp")
        seconds_path = self.path(value, "SecondsPath", location, compile_reference_path, nullable=False)
        timestamp_path = self.path(value, "TimestampPath", location, compile_reference_path, nullable=False)
        return lambda **common: WaitState(
            **common, seconds=seconds, seconds_path=seconds_path, timestamp=timestamp, timestamp_path=timestamp_path,
            seconds_expression=seconds_expression, timestamp_expression=timestamp_expression,
        )

    def _succeed(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        return SucceedState

    def _fail(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        self.at_most_one(value, "Fail", ("Error", "ErrorPath"), location)
        self.at_most_one(value, "Fail", ("Cause", "CausePath"), location)
        error_expression = self.jsonata_field(value, "Error", location, STRING)
        cause_expression = self.jsonata_field(value, "Cause", location, STRING)
        error = self.typed(value, "Error", "STRING", location) if error_expression is None else None
        cause = self.typed(value, "Cause", "STRING", location) if cause_expression is None else None
        for field, text in (("Error", error), ("Cause", cause)):
            if self.language == JSONPATH and _looks_dynamic(text):
                self.warning(
                    NO_PATH,
                    f"The field '{field}' looks like a JSONPath or an intrinsic function but its name does not end "
                    f"with 'Path', so it is taken as a string: use '{field}Path'",
                    f"{location}/{field}",
                )
        error_path = self.path_or_intrinsic(value, "ErrorPath", location)
        cause_path = self.path_or_intrinsic(value, "CausePath", location)
        return lambda **common: FailState(
            **common, error=error, cause=cause, error_path=error_path, cause_path=cause_path,
            error_expression=error_expression, cause_expression=cause_expression,
        )

    def _parallel(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        language = self.language  # the branches' states change it
        branches: list[StateMachine | None] = []
        if "Branches" not in value:
            self.error("These fields are required: [Branches]", location or "/")
        definitions = self.typed(value, "Branches", "ARRAY", location)
        if isinstance(definitions, list):
            if not definitions:
                self.error(_EMPTY, f"{location}/Branches")
            branches = [
                self.machine(branch, f"{location}/Branches[{index}]", kind="branch", query_language=self.machine_language)
                for index, branch in enumerate(definitions)
            ]
        self.language = language
        parameters = self.arguments_or_parameters(value, location)
        result_selector = self.template(value, "ResultSelector", location)
        result_path = self.result_path(value, location)
        retry = self.retriers(value, location)
        catch = self.catchers(name, value, location, scope)
        return lambda **common: ParallelState(
            **common,
            branches=tuple(branches),
            parameters=parameters,
            result_selector=result_selector,
            result_path=result_path,
            retry=retry,
            catch=catch,
        )

    def _map(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        language = self.language  # the item processor's states change it
        processor_field = "ItemProcessor" if "ItemProcessor" in value else "Iterator"
        if "ItemProcessor" in value and "Iterator" in value:
            self.at_most_one(value, "Map", ("ItemProcessor", "Iterator"), location)
        elif processor_field not in value:
            self.error("These fields are required: [ItemProcessor]", location or "/")
        processor_location = f"{location}/{processor_field}"
        processor = value.get(processor_field)
        mode, execution_type = "INLINE", None
        if isinstance(processor, dict):
            mode, execution_type = self.processor_config(processor, processor_location)
        item_processor = (
            self.machine(processor, processor_location, kind="processor", query_language=self.machine_language)
            if processor is not None
            else None
        )
        self.language = language
        self.at_most_one(value, "Map", ("ItemSelector", "Parameters"), location)
        selector_field = "ItemSelector" if "ItemSelector" in value else "Parameters"
        if self.language == JSONATA:
            item_selector = self.jsonata_template(value, "ItemSelector", location)
        else:
            item_selector = self.template(value, selector_field, location)
        if is_jsonata(value.get("Items")):
            items = self.jsonata_field(value, "Items", location, ARRAY)
        else:
            items = self.jsonata_template(value, "Items", location)
        items_path = self.path(value, "ItemsPath", location, compile_reference_path, nullable=False)
        item_reader = self.item_reader(value, location, mode)
        item_batcher = self.item_batcher(value, location)
        result_writer = self.result_writer(value, location, mode)
        self.at_most_one(value, "Map", ("MaxConcurrency", "MaxConcurrencyPath"), location)
        max_concurrency_expression = self.jsonata_field(value, "MaxConcurrency", location, NON_NEGATIVE_INTEGER)
        tolerated_percentage_expression = self.jsonata_field(value, "ToleratedFailurePercentage", location, NUMBER)
        tolerated_count_expression = self.jsonata_field(value, "ToleratedFailureCount", location, INTEGER)
        max_concurrency = tolerated_percentage = tolerated_count = None
        if max_concurrency_expression is None:
            max_concurrency = self.integer(value, "MaxConcurrency", location, minimum=0)
        max_concurrency_path = self.path(value, "MaxConcurrencyPath", location, compile_reference_path, nullable=False)
        self.at_most_one(value, "Map", ("ToleratedFailurePercentage", "ToleratedFailurePercentagePath"), location)
        if tolerated_percentage_expression is None:
            tolerated_percentage = self.number(value, "ToleratedFailurePercentage", location, minimum=0, maximum=100)
        tolerated_percentage_path = self.path(
            value, "ToleratedFailurePercentagePath", location, compile_reference_path, nullable=False
        )
        self.at_most_one(value, "Map", ("ToleratedFailureCount", "ToleratedFailureCountPath"), location)
        if tolerated_count_expression is None:
            tolerated_count = self.integer(value, "ToleratedFailureCount", location, minimum=0)
        tolerated_count_path = self.path(value, "ToleratedFailureCountPath", location, compile_reference_path, nullable=False)
        label = self.typed(value, "Label", "STRING", location)
        result_selector = self.template(value, "ResultSelector", location)
        result_path = self.result_path(value, location)
        retry = self.retriers(value, location)
        catch = self.catchers(name, value, location, scope)
        if item_processor is None:
            return None
        return lambda **common: MapState(
            **common,
            item_processor=item_processor,
            processor_mode=mode,
            execution_type=execution_type,
            items_path=items_path,
            items=items,
            item_selector=item_selector,
            item_reader=item_reader,
            item_batcher=item_batcher,
            result_writer=result_writer,
            max_concurrency=max_concurrency or 0,
            max_concurrency_path=max_concurrency_path,
            max_concurrency_expression=max_concurrency_expression,
            tolerated_failure_percentage=tolerated_percentage,
            tolerated_failure_percentage_path=tolerated_percentage_path,
            tolerated_failure_count=tolerated_count,
            tolerated_failure_count_path=tolerated_count_path,
            tolerated_failure_percentage_expression=tolerated_percentage_expression,
            tolerated_failure_count_expression=tolerated_count_expression,
            label=label,
            result_selector=result_selector,
            result_path=result_path,
            retry=retry,
            catch=catch,
        )

    def item_reader(self, value: dict, location: str, mode: str) -> ItemReader | None:
        """A Distributed Map's ItemReader: its S3 resource, Parameters and ReaderConfig."""
        reader = self.typed(value, "ItemReader", "OBJECT", location)
        if reader is None:
            return None
        here = f"{location}/ItemReader"
        if mode != "DISTRIBUTED":
            self.error("Field 'ItemReader' is not supported", location)
        jsonata = self.language == JSONATA
        self.unknown_fields(reader, _JSONATA_ITEM_READER_FIELDS if jsonata else _ITEM_READER_FIELDS, here)
        resource = self.map_resource(reader, here, _ITEM_READER_RESOURCES)
        config = self.typed(reader, "ReaderConfig", "OBJECT", here)
        reader_config = self.reader_config(config, f"{here}/ReaderConfig") if config is not None else ReaderConfig()
        return ItemReader(resource or "", self.arguments_or_parameters(reader, here), reader_config)

    def reader_config(self, config: dict, location: str) -> ReaderConfig:
        self.unknown_fields(config, _READER_CONFIG_FIELDS, location)
        self.at_most_one(config, "ReaderConfig", ("MaxItems", "MaxItemsPath"), location)
        headers = self.typed(config, "CSVHeaders", "ARRAY", location) or []
        max_items_expression = self.jsonata_field(config, "MaxItems", location, INTEGER)
        if not all(isinstance(header, str) for header in headers):
            self.error("Expected value of type [STRING]", f"{location}/CSVHeaders")
        return ReaderConfig(
            input_type=self.enum(config, "InputType", _READER_INPUT_TYPES, location),
            csv_header_location=self.enum(config, "CSVHeaderLocation", ("FIRST_ROW", "GIVEN"), location),
            csv_headers=tuple(str(header) for header in headers),
            csv_delimiter=self.enum(config, "CSVDelimiter", _CSV_DELIMITERS, location) or "COMMA",
            max_items=(self.integer(config, "MaxItems", location, minimum=0, maximum=_MAX_ITEMS)
                       if max_items_expression is None else None),
            max_items_expression=max_items_expression,
            max_items_path=self.path(config, "MaxItemsPath", location, compile_reference_path, nullable=False),
            items_pointer=self.typed(config, "ItemsPointer", "STRING", location),
            transformation=self.enum(config, "Transformation", ("NONE", "LOAD_AND_FLATTEN"), location) or "NONE",
            manifest_type=self.enum(config, "ManifestType", ("ATHENA_DATA", "S3_INVENTORY"), location),
        )

    def item_batcher(self, value: dict, location: str) -> ItemBatcher | None:
        """A Distributed Map's ItemBatcher: batch sizes as integers, `...Path`s (JSONPath) or expressions
        (JSONata), and the BatchInput template every batch carries."""
        batcher = self.typed(value, "ItemBatcher", "OBJECT", location)
        if batcher is None:
            return None
        here = f"{location}/ItemBatcher"
        jsonata = self.language == JSONATA
        self.unknown_fields(batcher, _JSONATA_ITEM_BATCHER_FIELDS if jsonata else _ITEM_BATCHER_FIELDS, here)
        sizes: dict[str, Any] = {}
        for field, name in (("MaxItemsPerBatch", "max_items_per_batch"), ("MaxInputBytesPerBatch", "max_input_bytes_per_batch")):
            self.at_most_one(batcher, "ItemBatcher", (field, f"{field}Path"), here)
            expression = self.jsonata_field(batcher, field, here, POSITIVE_INTEGER)
            sizes[f"{name}_expression"] = expression
            sizes[name] = self.integer(batcher, field, here, minimum=1) if expression is None else None
            sizes[f"{name}_path"] = self.path(batcher, f"{field}Path", here, compile_reference_path, nullable=False)
        if jsonata:
            batch_input = self.jsonata_template(batcher, "BatchInput", here)
        else:
            batch_input = self.template(batcher, "BatchInput", here)
        return ItemBatcher(batch_input=batch_input, **sizes)

    def result_writer(self, value: dict, location: str, mode: str) -> ResultWriter | None:
        """A Distributed Map's ResultWriter: `s3:putObject` and the Bucket and Prefix to write under."""
        writer = self.typed(value, "ResultWriter", "OBJECT", location)
        if writer is None:
            return None
        here = f"{location}/ResultWriter"
        if mode != "DISTRIBUTED":
            self.error("Field 'ResultWriter' is not supported", location)
        jsonata = self.language == JSONATA
        self.unknown_fields(writer, _JSONATA_RESULT_WRITER_FIELDS if jsonata else _RESULT_WRITER_FIELDS, here)
        transformation = output_type = None
        config = self.typed(writer, "WriterConfig", "OBJECT", here)
        if config is not None:
            config_location = f"{here}/WriterConfig"
            self.unknown_fields(config, _WRITER_CONFIG_FIELDS, config_location)
            transformation = self.enum(config, "Transformation", ("NONE", "COMPACT", "FLATTEN"), config_location)
            output_type = self.enum(config, "OutputType", ("JSON", "JSONL"), config_location)
        # A WriterConfig alone previews the results without exporting them: no Resource is needed then.
        resource = (self.map_resource(writer, here, _RESULT_WRITER_RESOURCES)
                    if config is None or "Resource" in writer else None)
        return ResultWriter(resource or "", self.arguments_or_parameters(writer, here),
                            transformation=transformation, output_type=output_type)

    def map_resource(self, value: dict, location: str, allowed: tuple[str, ...]) -> str | None:
        """The Resource of an ItemReader or ResultWriter: one of the S3 actions Step Functions calls for it."""
        if "Resource" not in value:
            self.error("These fields are required: [Resource]", location)
            return None
        return self.enum(value, "Resource", allowed, location)

    def processor_config(self, processor: dict, location: str) -> tuple[str, str | None]:
        """ProcessorConfig's Mode (INLINE by default) and, for a distributed Map, its ExecutionType."""
        config = self.typed(processor, "ProcessorConfig", "OBJECT", location)
        if not isinstance(config, dict):
            return "INLINE", None
        here = f"{location}/ProcessorConfig"
        self.unknown_fields(config, _PROCESSOR_CONFIG_FIELDS, here)
        mode = self.enum(config, "Mode", _PROCESSOR_MODES, here) or "INLINE"
        execution_type = self.enum(config, "ExecutionType", _EXECUTION_TYPES, here)
        if execution_type is not None and mode != "DISTRIBUTED":
            self.error("Field 'ExecutionType' is not supported", here)
        return mode, execution_type

    # -- error handling -------------------------------------------------------------------------

    def retriers(self, value: dict, location: str) -> tuple[Retrier, ...]:
        definitions = self.typed(value, "Retry", "ARRAY", location)
        if not isinstance(definitions, list):
            return ()
        retriers = []
        for index, definition in enumerate(definitions):
            here = f"{location}/Retry[{index}]"
            if not isinstance(definition, dict):
                self.error("Expected value of type [OBJECT]", here)
                continue
            self.unknown_fields(definition, _RETRIER_FIELDS, here)
            error_equals = self.error_equals(definition, here, last=index == len(definitions) - 1)
            settings = {  # the fields given; Retrier's defaults are ASL's for the others
                "interval_seconds": self.integer(definition, "IntervalSeconds", here, minimum=1, maximum=_MAX_SECONDS),
                "max_attempts": self.integer(definition, "MaxAttempts", here, minimum=0, maximum=_MAX_SECONDS),
                "backoff_rate": self.number(definition, "BackoffRate", here, minimum=1),
                "max_delay_seconds": self.integer(definition, "MaxDelaySeconds", here, minimum=1, maximum=_MAX_SECONDS),
                "jitter_strategy": self.enum(definition, "JitterStrategy", _JITTER_STRATEGIES, here),
                "comment": self.typed(definition, "Comment", "STRING", here),
            }
            retriers.append(Retrier(
                error_equals=error_equals, **{key: item for key, item in settings.items() if item is not None}
            ))
        return tuple(retriers)

    def catchers(self, name: str, value: dict, location: str, scope: Scope) -> tuple[Catcher, ...]:
        definitions = self.typed(value, "Catch", "ARRAY", location)
        if not isinstance(definitions, list):
            return ()
        catchers = []
        for index, definition in enumerate(definitions):
            here = f"{location}/Catch[{index}]"
            if not isinstance(definition, dict):
                self.error("Expected value of type [OBJECT]", here)
                continue
            jsonata = self.language == JSONATA
            self.unknown_fields(definition, _JSONATA_CATCHER_FIELDS if jsonata else _CATCHER_FIELDS, here)
            assign = self.assign(definition, here)
            output = self.jsonata_template(definition, "Output", here) if jsonata else None
            error_equals = self.error_equals(definition, here, last=index == len(definitions) - 1)
            next_state = self.typed(definition, "Next", "STRING", here)
            if "Next" not in definition:
                self.error("These fields are required: [Next]", here)
            elif isinstance(next_state, str):
                scope.transitions.append(Transition(name, next_state, f"{here}/Next"))
            result_path = self.result_path(definition, here)
            comment = self.typed(definition, "Comment", "STRING", here)
            if isinstance(next_state, str):
                catchers.append(Catcher(
                    error_equals=error_equals, next=next_state, result_path=result_path, assign=assign,
                    output=output, comment=comment,
                ))
        return tuple(catchers)

    def error_equals(self, definition: dict, location: str, *, last: bool) -> tuple[str, ...]:
        """A retrier's or catcher's ErrorEquals: non-empty names; States.ALL alone, in the last one."""
        if "ErrorEquals" not in definition:
            self.error("These fields are required: [ErrorEquals]", location)
            return ()
        names = self.typed(definition, "ErrorEquals", "ARRAY", location)
        if not isinstance(names, list):
            return ()
        here = f"{location}/ErrorEquals"
        if not names:
            self.error(_EMPTY, here)
        for index, item in enumerate(names):
            if not isinstance(item, str):
                self.error("Expected value of type [STRING]", f"{here}[{index}]")
        if _ALL_ERRORS in names and len(names) > 1:
            self.error(f"'{_ALL_ERRORS}' must appear alone in the field 'ErrorEquals'", here)
        if _ALL_ERRORS in names and not last:
            self.error(f"A retrier or catcher whose 'ErrorEquals' contains '{_ALL_ERRORS}' must be the last one", here)
        return tuple(item for item in names if isinstance(item, str))

    # -- resources ------------------------------------------------------------------------------

    def http_task_parameters(self, value: dict, location: str) -> None:
        """An HTTP Task names its endpoint, method and connection in its Parameters (Arguments); in
        JSONata a whole-field expression may give them all, so only an object is checked."""
        field = "Arguments" if self.language == JSONATA else "Parameters"
        given = value.get(field)
        if field in value and not isinstance(given, dict):
            return
        keys = {key.removesuffix(".$") for key in (given or {})}
        missing = [names[0] for names in _HTTP_TASK_REQUIRED if not keys.intersection(names)]
        if missing:
            self.error(f"These fields are required: [{', '.join(missing)}]", f"{location}/{field}")

    def check_resource(self, resource: str, location: str) -> None:
        """A Task's Resource is an ARN, and an optimized integration one of its service's actions (recorded:
        `dynamodb:query` is refused, it is `aws-sdk:dynamodb:query`); an EXPRESS machine cannot wait on
        activities or callbacks."""
        arn = split_arn(resource)
        if arn is None or not arn.service or _unknown_optimized_action(arn):
            self.error(
                f"The resource provided {resource} is not recognized. The value is not a valid resource ARN, "
                "or the resource is not available in this region.",
                location,
            )
            return
        if not self.express or arn.service != "states":
            return
        if arn.resource_type == "activity":
            self.error("Express state machine does not support Activity ARN", location)
            return
        action = arn.resource.partition(":")[2]
        for pattern in (".waitForTaskToken", ".sync:2", ".sync"):
            if action.endswith(pattern):
                self.error(f"Express state machine does not support '{pattern}' service integration ", location)
                return

    # -- expressions ----------------------------------------------------------------------------

    def path(
        self,
        value: dict,
        field: str,
        location: str,
        compiler: Callable[[str], Expression],
        *,
        nullable: bool = True,
    ) -> Expression | None:
        """A path field. InputPath/OutputPath default to `$` and may be null; the others are optional."""
        text = value.get(field, _ABSENT)
        if text is _ABSENT:
            return compiler("$") if nullable else None
        if text is None and nullable:
            return None
        if not isinstance(text, str):
            self.error("Expected value of type [STRING]", f"{location}/{field}")
            return None
        try:
            return compiler(text)
        except InvalidPath:
            self.error(f"The value for the field '{field}' must be a valid JSONPath", f"{location}/{field}")
            return None

    def result_path(self, value: dict, location: str) -> ResultPath | None:
        text = value.get("ResultPath", _ABSENT)
        if text is _ABSENT:
            return compile_result_path("$")
        if text is None:
            return None
        if not isinstance(text, str):
            self.error("Expected value of type [STRING]", f"{location}/ResultPath")
            return None
        try:
            return compile_result_path(text)
        except InvalidPath:
            self.error("The value for the field 'ResultPath' must be a valid JSONPath", f"{location}/ResultPath")
            return None

    def path_or_intrinsic(self, value: dict, field: str, location: str) -> Expression | None:
        """Fail's ErrorPath/CausePath: a reference path or an intrinsic function call."""
        text = value.get(field, _ABSENT)
        if text is _ABSENT:
            return None
        if not isinstance(text, str):
            self.error("Expected value of type [STRING]", f"{location}/{field}")
            return None
        compiled = _compile_dynamic_value(text, compile_reference_path)
        if compiled is None:
            self.error(
                f"The value for the field '{field}' must be a valid JSONPath or a valid intrinsic function call",
                f"{location}/{field}",
            )
        return compiled

    def template(self, value: dict, field: str, location: str) -> Expression | None:
        """A payload template (Parameters, ResultSelector, ItemSelector, Credentials), or None when absent."""
        if field not in value:
            return None
        template = value[field]
        for key, item in _static_keys(template):
            if _looks_dynamic(item):
                self.warning(
                    NO_DOLLAR,
                    f"The field '{key}' looks like a JSONPath or an intrinsic function but its name does not end "
                    "with '.$', so it is passed as a string",
                    f"{location}/{field}",
                )
        try:
            return compile_template(template, field=field)
        except TemplateError as problem:
            self.error(problem.message, f"{location}{problem.pointer}")
            return None

    def credentials(self, value: dict, location: str) -> Expression | None:
        """A Task's Credentials: an object naming the role to assume, as `RoleArn` (`RoleArn.$` in JSONPath);
        AWS reports only a missing role, whatever else the object holds (recorded)."""
        if "Credentials" not in value:
            return None
        given = value["Credentials"]
        if not isinstance(given, dict):
            self.error("Expected value of type [OBJECT]", f"{location}/Credentials")
            return None
        if "RoleArn" not in given and not (self.language == JSONPATH and "RoleArn.$" in given):
            self.error("The field 'RoleArn' is required but was missing", f"{location}/Credentials")
            return None
        if self.language == JSONATA:
            return self.jsonata_template(value, "Credentials", location)
        return self.template(value, "Credentials", location)

    def arguments_or_parameters(self, value: dict, location: str) -> Expression | None:
        """A Task's or Parallel's input template: JSONata `Arguments` or JSONPath `Parameters`."""
        if self.language == JSONATA:
            return self.jsonata_template(value, "Arguments", location)
        return self.template(value, "Parameters", location)

    def jsonata_template(self, value: dict, field: str, location: str) -> Expression | None:
        """A JSONata field whose value is JSON with `{% ... %}` strings at any depth; None when absent."""
        if field not in value:
            return None
        try:
            return compile_jsonata_template(value[field], field)
        except JsonataSyntaxError as problem:
            self.error(problem.message, f"{location}/{field}")
            return None

    def jsonata_field(self, value: dict, field: str, location: str, result_type: ResultType) -> Expression | None:
        """A field (TimeoutSeconds, Seconds, Error, Items, ...) given as one `{% ... %}` expression in a JSONata
        state, which must give a value of `result_type`; None when it is absent or a plain value (checked by
        the caller)."""
        text = value.get(field)
        if not is_jsonata(text):
            return None
        if self.language != JSONATA:
            return None  # a JSONPath state checks the plain value, and so refuses the expression
        try:
            return compile_typed_jsonata(text, field, result_type)
        except JsonataSyntaxError as problem:
            self.error(problem.message, f"{location}/{field}")
            return None

    def assign(self, value: dict, location: str) -> Expression | None:
        """An `Assign` object: variable names to values (a payload template in JSONPath, JSON with
        `{% ... %}` strings in JSONata); None when absent."""
        if "Assign" not in value:
            return None
        assignments = value["Assign"]
        here = f"{location}/Assign"
        if not isinstance(assignments, dict):
            self.error("Expected value of type [OBJECT]", here)
            return None
        for key in assignments:
            name = key[: -len(".$")] if self.language == JSONPATH and key.endswith(".$") else key
            if name == _RESERVED_VARIABLE:
                self.error(f"The variable name '{name}' is reserved and cannot be assigned", here)
            elif not name.isidentifier() or len(name) > _MAX_VARIABLE_NAME_LENGTH:
                self.error(
                    f"The variable name '{name}' is invalid: a variable name starts with a letter or an underscore, "
                    f"holds only letters, digits and underscores, and has at most {_MAX_VARIABLE_NAME_LENGTH} characters",
                    here,
                )
        if self.language == JSONATA:
            return self.jsonata_template(value, "Assign", location)
        return self.template(value, "Assign", location)

    # -- plain fields ---------------------------------------------------------------------------

    def unknown_fields(self, value: dict, allowed: frozenset[str] | set[str], location: str) -> None:
        for field in value:
            if field not in allowed:
                self.error(f"Field '{field}' is not supported", location)

    def typed(self, value: dict, field: str, json_type: str, location: str) -> Any:
        """The field's value if it has the JSON type, else None (with a diagnostic when present)."""
        item = value.get(field, _ABSENT)
        if item is _ABSENT:
            return None
        if not _JSON_TYPES[json_type](item):
            self.error(f"Expected value of type [{json_type}]", f"{location}/{field}")
            return None
        return item

    def integer(
        self, value: dict, field: str, location: str, *, minimum: int, maximum: int | None = None
    ) -> int | None:
        item = self.typed(value, field, "INTEGER", location)
        return item if self.in_range(item, field, location, minimum, maximum) else None

    def number(
        self, value: dict, field: str, location: str, *, minimum: float, maximum: float | None = None
    ) -> float | None:
        item = self.typed(value, field, "NUMBER", location)
        return item if self.in_range(item, field, location, minimum, maximum) else None

    def in_range(self, item: Any, field: str, location: str, minimum: float, maximum: float | None) -> bool:
        if item is None:
            return False
        if item < minimum:
            self.error(f"The value for the field '{field}' must be greater than or equal to {minimum}", f"{location}/{field}")
            return False
        if maximum is not None and item > maximum:
            self.error(f"The value for the field '{field}' must be less than or equal to {maximum}", f"{location}/{field}")
            return False
        return True

    def enum(self, value: dict, field: str, allowed: tuple[str, ...], location: str) -> str | None:
        item = self.typed(value, field, "STRING", location)
        if item is not None and item not in allowed:
            self.error(f"The field '{field}' should have one of these values: {_list(allowed)}", f"{location}/{field}")
            return None
        return item

    def at_most_one(self, value: dict, state_type: str, fields: tuple[str, str], location: str) -> None:
        if all(field in value for field in fields):
            first, second = fields
            self.error(f"A {state_type} state cannot include both field '{first}' and '{second}'", location or "/")


def _is_http_task(resource: str) -> bool:
    arn = split_arn(resource)
    return arn is not None and arn.service == "states" and arn.resource == f"http:{_HTTP_TASK_RESOURCE}"


def _unknown_optimized_action(arn: Arn) -> bool:
    """An `arn:<partition>:states:::<service>:<action>` naming an action its service has no optimized
    integration for (only services whose whole set of actions is listed here are checked)."""
    service, has_action, action = arn.resource.partition(":")
    if arn.service != "states" or not has_action or service not in _OPTIMIZED_ACTIONS:
        return False
    for pattern in (".waitForTaskToken", ".sync:2", ".sync"):
        action = action.removesuffix(pattern)
    return action not in _OPTIMIZED_ACTIONS[service]


# ---------------------------------------------------------------------------------------------
# Payload template helpers


def _dollar_keys(template: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) of the template whose key ends in `.$`, at any depth."""
    if isinstance(template, dict):
        for key, item in template.items():
            if key.endswith(".$"):
                yield key, item
            else:
                yield from _dollar_keys(item)
    elif isinstance(template, list):
        for item in template:
            yield from _dollar_keys(item)


def _static_keys(template: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) of the template whose key does not end in `.$`, at any depth."""
    if isinstance(template, dict):
        for key, item in template.items():
            if not key.endswith(".$"):
                yield key, item
                yield from _static_keys(item)
    elif isinstance(template, list):
        for item in template:
            yield from _static_keys(item)


def _looks_dynamic(item: Any) -> bool:
    return isinstance(item, str) and (item == "$" or item.startswith(("$.", "$$.", "$[")) or (
        item.startswith("States.") and item.endswith(")")
    ))


def _compile_dynamic_value(text: str, path_compiler: Callable[[str], Expression]) -> Expression | None:
    """A `.$` value: a path (compiled by `path_compiler`) or an intrinsic call; None when it is neither."""
    try:
        if is_path_text(text):
            return path_compiler(text)
        return compile_intrinsic(text)
    except (InvalidPath, IntrinsicSyntaxError):
        return None
