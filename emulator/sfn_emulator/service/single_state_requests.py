"""What a TestState request asks for, checked as AWS checks it before anything runs.

The state to test (a lone state, or `stateName` in a whole machine, nested states included),
its `mock`, the caller's Context Object (`context`) and `stateConfiguration`. Refusals use AWS's
texts where AWS's answers were recorded (the mock rules, the Context Object fields); the few
rules whose texts were not recorded say plainly what is wrong, with the same error code.
"""

from __future__ import annotations

import json
from typing import Any

from sfn_emulator.asl.json_reading import JsonTextError, read_json
from sfn_emulator.asl.model import JSON, MapState, ParallelState, State, TaskState
from sfn_emulator.asl.parser import InvalidDefinitionError, parse_definition, parse_single_state
from sfn_emulator.asl.task_targets import ACTIVITY, SYNC, SYNC2, WAIT_FOR_TASK_TOKEN
from sfn_emulator.engine.single_state import StateConfiguration, find_state
from sfn_emulator.service.errors import InvalidDefinition, ValidationException
from sfn_emulator.service.mock_result_schema import STRICT, check_mock_result

MOCKABLE = frozenset({"Task", "Map", "Parallel"})
NEEDS_A_MOCK = ("TestState API does not support Map or Parallel states. "
                "Supported state types include: [Task, Wait, Pass, Succeed, Fail, Choice]")
# "TestState only supports the following when a mock is specified: Activity tasks, .sync or
# .waitForTaskToken service integration patterns, Parallel, or Map states." (API reference)
TASK_NEEDS_A_MOCK = ("TestState API does not support Activity tasks, .sync or .waitForTaskToken service "
                     "integration patterns when a mock is not specified.")
_CONTEXT_PREFIX = "Invalid Context object provided: "
# The Context Object a caller may supply: its sections, their fields, and each field's JSON type
# (None: any value). `Map` is refused with its own text; `Task` only where a task token exists.
_CONTEXT_FIELDS: dict[str, dict[str, type | tuple[type, ...] | None]] = {
    "Execution": {"Id": str, "Input": None, "Name": str, "RoleArn": str, "StartTime": str,
                  "RedriveCount": int, "RedriveTime": str},
    "State": {"EnteredTime": str, "Name": str, "RetryCount": int},
    "StateMachine": {"Id": str, "Name": str},
    "Task": {"Token": str},
}
_TYPE_NAMES = {str: "a string", int: "a number"}
_TOKEN_PATTERNS = frozenset({SYNC, SYNC2, WAIT_FOR_TASK_TOKEN})


def state_to_test(definition: str, state_name: str | None) -> State:
    """The state TestState runs: the definition of one state, or the state `state_name` of a machine."""
    try:
        if state_name is None:
            return parse_single_state(definition)
        machine = parse_definition(definition)
    except InvalidDefinitionError as error:
        raise InvalidDefinition(error.message) from None
    state = find_state(machine, state_name)
    if state is None:
        raise ValidationException("State not found in definition")
    return state


def check_mock(state: State, mock: dict[str, Any] | None, reveal_secrets: bool, *,
               role_arn: str | None = None, configuration: dict[str, Any] | None = None) -> None:
    """A mock fits the state: only Task, Map and Parallel take one, and Map and Parallel need one.
    Without a mock, a Task runs for real (so it needs a role) and no Map iteration can have failed."""
    if mock is None:
        if (configuration or {}).get("mapIterationFailureCount") is not None:
            raise ValidationException("TestState does not support MapIterationFailureCount when a mock is not specified.")
        if isinstance(state, (MapState, ParallelState)):
            raise InvalidDefinition(NEEDS_A_MOCK)
        if isinstance(state, TaskState) and (_has_task_token(state) or state.target.kind == ACTIVITY):
            raise InvalidDefinition(TASK_NEEDS_A_MOCK)
        if isinstance(state, TaskState) and not role_arn:
            raise ValidationException("RoleArn must be specified when testing a Task state")
        return
    if ("result" in mock) == ("errorOutput" in mock):  # a mock is exactly one of the two
        raise ValidationException("A test mock should have only one of the following fields: [result, errorOutput].")
    if reveal_secrets:
        raise ValidationException("TestState does not support RevealSecrets when a mock is specified.")
    if state.type not in MOCKABLE:
        raise ValidationException(f"State type '{state.type}' is not supported when a mock is specified")
    if "result" not in mock:
        return
    try:
        result = json.loads(mock["result"])
    except ValueError:
        raise ValidationException("Mocked result must be valid JSON.") from None
    if isinstance(state, MapState) and state.result_writer is not None:
        if not isinstance(result, dict):
            raise ValidationException("Mocked result must be a JSON object.")
    elif isinstance(state, (MapState, ParallelState)):
        if not isinstance(result, list):
            raise ValidationException("Mocked result must be an array.")
        if isinstance(state, ParallelState) and len(result) != len(state.branches):
            raise ValidationException(
                "Mocked result must contain the same number of items as number of Parallel branches.")
    elif isinstance(state, TaskState):
        check_mock_result(state.target, result, mock.get("fieldValidationMode") or STRICT)


def read_context(text: str | None, state: State, mock: dict[str, Any] | None) -> dict[str, JSON] | None:
    """The caller's Context Object, checked field by field."""
    if text is None:
        return None
    if mock is None:
        raise ValidationException(f"{_CONTEXT_PREFIX}a Context object may only be specified with a mock")
    try:
        context = read_json(text)
    except JsonTextError as problem:
        raise ValidationException(f"{_CONTEXT_PREFIX}{problem.message}") from None
    if not isinstance(context, dict):
        raise ValidationException(f"{_CONTEXT_PREFIX}the Context object must be a JSON object")
    for section, fields in context.items():
        if section == "Map":
            raise ValidationException(f"{_CONTEXT_PREFIX}'Map' field is not supported when mocking a Context object")
        if section not in _CONTEXT_FIELDS:
            raise ValidationException(f"{_CONTEXT_PREFIX}Field '{section}' is not allowed")
        if section == "Task" and not _has_task_token(state):
            raise ValidationException(f"{_CONTEXT_PREFIX}Context object contains 'Task' when state is not a Task "
                                      "state with a '.sync' or '.waitForTaskToken' service integration pattern")
        if not isinstance(fields, dict):
            raise ValidationException(f"{_CONTEXT_PREFIX}{section} must be an object")
        for name, value in fields.items():
            if name not in _CONTEXT_FIELDS[section]:
                raise ValidationException(f"{_CONTEXT_PREFIX}Field '{name}' is not allowed")
            expected = _CONTEXT_FIELDS[section][name]
            if expected is not None and (isinstance(value, bool) or not isinstance(value, expected)):
                raise ValidationException(f"{_CONTEXT_PREFIX}{section}.{name} must be {_TYPE_NAMES[expected]}")
    return context


def _has_task_token(state: State) -> bool:
    return isinstance(state, TaskState) and state.target.pattern in _TOKEN_PATTERNS


def read_variables(text: str | None) -> dict[str, JSON]:
    """TestState's `variables`: the workflow variables in scope when the state runs, a JSON object."""
    if text is None:
        return {}
    try:
        variables = read_json(text)
    except JsonTextError as problem:
        raise ValidationException(f"Invalid variables: {problem.message}") from None
    if not isinstance(variables, dict):
        raise ValidationException("Invalid variables: the variables must be a JSON object")
    return variables


def read_configuration(configuration: dict[str, Any] | None, state: State) -> StateConfiguration:
    """`stateConfiguration`, each member checked against the state it is meant for."""
    configuration = configuration or {}
    caused_by = configuration.get("errorCausedByState")
    if caused_by is not None:
        inner = state.branches if isinstance(state, ParallelState) else (
            (state.item_processor,) if isinstance(state, MapState) else ())
        if not inner:
            raise ValidationException("errorCausedByState can only be specified for a Map or Parallel state")
        if all(find_state(branch, caused_by) is None for branch in inner):
            raise ValidationException(f"errorCausedByState '{caused_by}' is not a state of the tested "
                                      f"{state.type} state")
    failures = configuration.get("mapIterationFailureCount")
    if failures is not None and not isinstance(state, MapState):
        raise ValidationException("mapIterationFailureCount can only be specified for a Map state")
    return StateConfiguration(
        retrier_retry_count=configuration.get("retrierRetryCount") or 0,
        map_iteration_failure_count=failures or 0,
        map_item_reader_data=_item_reader_data(configuration.get("mapItemReaderData"), state),
    )


def _item_reader_data(data: str | None, state: State) -> str | None:
    """`mapItemReaderData`: "the data read by ItemReader ... as found in its original source" (API
    reference), so its text is read as the ItemReader's ReaderConfig says when the Map runs."""
    if data is not None and (not isinstance(state, MapState) or state.item_reader is None):
        raise ValidationException("mapItemReaderData can only be specified for a Map state with an ItemReader")
    return data
