"""The interpreter: runs a parsed state machine as a generator of effects.

Data in, events out: it reads a `StateMachine` and an input, appends AWS history events through
its `Frame`, and yields an effect (`Sleep`, `Invoke`, `AwaitToken`, `ScheduleActivity`, `Fork`,
`Reschedule`) whenever it must wait for the world. It never sleeps, never reads the wall clock and
never touches a thread; the scheduler owns all of that.

Event sequences follow AWS's recorded histories: a retried state stays entered (no exit event
between attempts; Parallel and Map emit `...StateStarted` per attempt and `...StateFailed` once,
when the error leaves the state); a caught error exits the state; an uncaught one leaves it
without an exit event; `States.Runtime` is never retried nor caught.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Callable

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.jsonata_expressions import QueryEvaluationError
from sfn_emulator.asl.model import (
    JSON,
    BaseState,
    Catcher,
    ChoiceState,
    FailState,
    ItemReader,
    MapState,
    ParallelState,
    PassState,
    Retrier,
    ResultWriter,
    StateMachine,
    SucceedState,
    TaskState,
    WaitState,
)
from sfn_emulator.asl.timestamps import parse_timestamp
from sfn_emulator.engine.effects import (
    TRANSITION,
    Aborted,
    AnswersWholeTask,
    AwaitCompletion,
    CheckActivity,
    AwaitToken,
    Fork,
    Interpreter,
    Invoke,
    Reschedule,
    RunMapRun,
    ScheduleActivity,
    Sleep,
)
from sfn_emulator.engine.execution import MapRun
from sfn_emulator.engine.frame import Frame, Run, to_json_text
from sfn_emulator.engine.item_reader import item_limit, items_from_object, listed_items, s3_call
from sfn_emulator.engine.limits import within_payload_limit
from sfn_emulator.engine.result_writer import destination, map_output, previewed_results, result_files
from sfn_emulator.partitions import partition_for
from sfn_emulator.randomness import Randomness
from sfn_emulator.resources.base import REQUEST_RESPONSE, SYNC, SYNC2, WAIT_FOR_TASK_TOKEN, ResourceArn, TaskRequest, parse_resource

MAX_WAIT_SECONDS = 2**31 - 1  # AWS refuses longer delays: "Wait state delay is too long."
RUNTIME_PREFIX = "An error occurred while executing the state"
_PREFIXED = (names.RUNTIME, names.QUERY_EVALUATION_ERROR)
_GET_OBJECT = "arn:aws:states:::s3:getObject"


class BranchFailure(StatesError):
    """The failure of a Parallel branch or Map iteration, as seen by its state: it emits
    `ParallelStateFailed`/`MapStateFailed` once the error leaves the state."""


def run_execution(run: Run) -> Interpreter:
    """The whole execution: its definition from its input; returns the output."""
    frame = Frame(run, prev_event_id=run.execution.history[-1]["id"] if run.execution.history else 0)
    return (yield from run_machine(run.execution.machine, run.execution_context["Input"], frame))


def run_machine(machine: StateMachine, value: JSON, frame: Frame) -> Interpreter:
    """Run states from StartAt until one ends the machine; returns its output."""
    name: str | None = machine.start_at
    while name is not None:
        if not frame.nested:
            frame.run.restart_point = (name, value)
            frame.run.top_frame = frame
        value, name = yield from run_state(machine.states[name], value, frame)
    return value


def run_state(state: BaseState, state_input: JSON, frame: Frame) -> Interpreter:
    """Enter a state, run it with its Retry and Catch, exit it. Returns (output, next state name)."""
    yield TRANSITION
    frame.state_name = state.name
    frame.retry_count = 0
    frame.counts_retries = hasattr(state, "retry")
    frame.task_token = None
    if frame.resumed_entry is not None:  # a state entered before a restart (`persistence.restore`)
        (frame.entered_event_id, frame.entered_time), frame.resumed_entry = frame.resumed_entry, None
    else:
        frame.entered_time = frame.run.now()
        frame.entered_event_id = frame.emit(
            ENTERED[state.type], "stateEnteredEventDetails",
            {"name": state.name, "input": frame.run.payload_text(state_input), "inputDetails": {"truncated": False}},
        )
    if frame.interleave:
        yield Reschedule()
    retry: tuple[Retrier, ...] = getattr(state, "retry", ())
    attempts = [0] * len(retry)
    while True:
        frame.assigned = None
        try:
            output, next_name = yield from run_attempt(state, state_input, frame)
            # the run's text: an output that is the state's input (Choice, Wait) is not serialised again
            output_text = within_payload_limit(output, state.name, frame.run.payload_text(output))
        except StatesError as raised:
            frame.assigned = None
            error = with_runtime_prefix(raised, frame)
            if isinstance(raised, QueryEvaluationError):
                _evaluation_failed(state, error, raised.location, frame)
            if error.error != names.RUNTIME:
                index = _matching(retry, error.error)
                if index is not None and attempts[index] < retry[index].max_attempts:
                    delay = _retry_delay(retry[index], attempts[index], frame.run)
                    attempts[index] += 1
                    frame.retry_count += 1
                    _note_rule(frame, f"Retry[{index}]")
                    if delay > 0:
                        yield Sleep(frame.run.now() + timedelta(seconds=delay))
                    continue
            if isinstance(raised, BranchFailure):
                frame.emit(f"{state.type}StateFailed")
            catcher = matching_catcher(state, error)
            if catcher is None:
                if frame.nested and isinstance(state, TaskState):
                    frame.emit("TaskStateAborted")  # as AWS records a Task failing inside a branch
                raise error from None
            _note_rule(frame, f"Catch[{getattr(state, 'catch').index(catcher)}]")
            try:
                output = caught_output(state, catcher, state_input, error, frame)
            except StatesError as path_error:
                frame.assigned = None
                raised_error = with_runtime_prefix(path_error, frame)
                if isinstance(path_error, QueryEvaluationError):
                    _evaluation_failed(state, raised_error, path_error.location, frame)
                raise raised_error from None
            _exit(state, output, frame)
            return output, catcher.next
        except Aborted:
            if state.type in ABORTABLE:
                frame.emit(f"{state.type}StateAborted")
            raise
        _exit(state, output, frame, output_text)  # (a Fail state never gets here: it raises)
        return output, next_name


def _note_rule(frame: Frame, rule: str) -> None:
    """Note beside the history which rule this state visit applied (`Execution.rules_taken`)."""
    frame.run.execution.rules_taken.setdefault(frame.entered_event_id, []).append(rule)


def run_attempt(state: BaseState, state_input: JSON, frame: Frame) -> Interpreter:
    """One attempt at a state's work, without Retry or Catch. Returns (output, next state name)."""
    simple = SIMPLE_HANDLERS.get(state.type)
    if simple is not None:
        return simple(state, state_input, frame)
    return (yield from GENERATOR_HANDLERS[state.type](state, state_input, frame))


def caught_output(state: BaseState, catcher: Catcher, state_input: JSON, error: StatesError, frame: Frame) -> JSON:
    """The state's output when `catcher` caught `error`; its Assign is bound when the state exits.
    JSONata: the catcher's Output, else the error output; JSONPath: ResultPath on the state input."""
    caught = error_output(error)
    if state.jsonata:
        states = {"input": state_input, "errorOutput": caught}
        _assign(catcher.assign, states, frame)
        return catcher.output.evaluate(states, frame) if catcher.output is not None else caught
    _assign(catcher.assign, caught, frame)
    return catcher.result_path.apply(state_input, caught) if catcher.result_path else state_input


def error_output(error: StatesError) -> dict[str, JSON]:
    """What a Catcher passes on: {"Error", "Cause"} (Cause only when there is one, or when there is
    no error name either: AWS then passes both as null). A timeout has no cause in the history, but
    its error output has an empty one (recorded: a caught `lambda:invoke` TimeoutSeconds gives
    {"Error": "States.Timeout", "Cause": ""})."""
    output: dict[str, JSON] = {"Error": error.error}
    if error.cause is not None or error.error is None:
        output["Cause"] = error.cause
    elif error.error == names.TIMEOUT:
        output["Cause"] = ""
    return output


def matching_retrier(state: BaseState, error: StatesError) -> Retrier | None:
    retry: tuple[Retrier, ...] = getattr(state, "retry", ())
    index = _matching(retry, error.error) if error.error != names.RUNTIME else None
    return retry[index] if index is not None else None


def matching_catcher(state: BaseState, error: StatesError) -> Catcher | None:
    catch: tuple[Catcher, ...] = getattr(state, "catch", ())
    index = _matching(catch, error.error) if error.error != names.RUNTIME else None
    return catch[index] if index is not None else None


def _exit(state: BaseState, output: JSON, frame: Frame, output_text: str | None = None) -> None:
    """Leave the state: bind what its Assign evaluated to (AWS lists it in the exit event)."""
    details: dict[str, Any] = {"name": state.name, "output": frame.run.payload_text(output, known=output_text),
                               "outputDetails": {"truncated": False}}
    if frame.assigned is not None:
        frame.variables.assign(frame.assigned)
        if frame.assigned:
            details["assignedVariables"] = {name: to_json_text(value) for name, value in frame.assigned.items()}
            details["assignedVariablesDetails"] = {"truncated": False}
        frame.assigned = None
    frame.emit(EXITED[state.type], "stateExitedEventDetails", details)


def _assign(assign: Any, value: JSON, frame: Frame) -> None:
    """Evaluate an Assign now (on the state's result, or `$states` in JSONata); it is bound on exit."""
    if assign is not None:
        frame.assigned = assign.evaluate(value, frame)


def _evaluation_failed(state: BaseState, error: StatesError, location: str | None, frame: Frame) -> None:
    """AWS records a JSONata failure as an EvaluationFailed event; a Map or Parallel state then fails."""
    details = {"error": error.error, "cause": error.cause, "state": state.name}
    if location:
        details["location"] = location
    frame.emit("EvaluationFailed", "evaluationFailedEventDetails", details)
    if state.type in ("Map", "Parallel"):
        frame.emit(f"{state.type}StateFailed")


def with_runtime_prefix(error: StatesError, frame: Frame) -> StatesError:
    """States.Runtime and States.QueryEvaluationError causes name the failing state and its entered
    event, as AWS's do."""
    if error.error in _PREFIXED and not (error.cause or "").startswith(RUNTIME_PREFIX):
        return StatesError(error.error, f"{RUNTIME_PREFIX} '{frame.state_name}' (entered at the event id "
                                          f"#{frame.entered_event_id}). {error.cause or ''}".rstrip())
    return error


def _matching(rules: tuple[Retrier, ...] | tuple[Catcher, ...], error: str) -> int | None:
    return next((index for index, rule in enumerate(rules) if names.error_equals_matches(rule.error_equals, error)),
                None)


def _retry_delay(retrier: Retrier, attempt: int, run: Run) -> float:
    delay = retrier.interval_seconds * retrier.backoff_rate**attempt
    if retrier.max_delay_seconds is not None:
        delay = min(delay, retrier.max_delay_seconds)
    if retrier.jitter_strategy == "FULL":
        delay = run.random.uniform(0, delay)
    return delay


# -- input and output processing -------------------------------------------------------------------

def _evaluate_path(path: Any, value: JSON, frame: Frame) -> JSON:
    """InputPath / OutputPath / ItemsPath: None (JSON null in the definition) gives {}."""
    if path is None:
        return {}
    try:
        return path.evaluate(value, frame)
    except LookupError as missing:  # PathNotFound and friends
        raise StatesError(names.RUNTIME, _invalid_path_message(path, missing)) from None


def _invalid_path_message(path: Any, missing: Exception) -> str:
    reason = getattr(missing, "reason", None) or str(missing)
    return f"Invalid path '{path.text}' : {reason}"


def _input(state: BaseState, raw: JSON, frame: Frame) -> JSON:
    value = _evaluate_path(state.input_path, raw, frame)
    frame.inspect("afterInputPath", value)
    return value


def _output(state: BaseState, value: JSON, frame: Frame) -> JSON:
    return _evaluate_path(state.output_path, value, frame)


def _parameters(state: Any, value: JSON, frame: Frame) -> JSON:
    if state.parameters is not None:
        value = state.parameters.evaluate(value, frame)
        frame.inspect("afterParameters", value)
    return value


def _result_path(state: Any, raw: JSON, result: JSON, frame: Frame) -> JSON:
    output = raw if state.result_path is None else state.result_path.apply(raw, result)
    frame.inspect("afterResultPath", output)
    return output


def _select(state: Any, result: JSON, frame: Frame) -> JSON:
    """ResultSelector on a result; TestState reports the step even without one (as AWS's recordings do)."""
    frame.inspect("result", result)
    selected = result if state.result_selector is None else state.result_selector.evaluate(result, frame)
    frame.inspect("afterResultSelector", selected)
    return selected


# -- simple states ---------------------------------------------------------------------------------

def _jsonata_output(output: Any, states: dict[str, JSON], default: JSON, frame: Frame) -> JSON:
    """A JSONata state's (or rule's, or catcher's) Output, or `default` without one."""
    return output.evaluate(states, frame) if output is not None else default


def run_pass(state: PassState, raw: JSON, frame: Frame) -> tuple[JSON, str | None]:
    if state.jsonata:
        states = {"input": raw}
        _assign(state.assign, states, frame)
        return _jsonata_output(state.output, states, raw, frame), state.next
    value = _input(state, raw, frame)
    result = state.result if state.has_result else _parameters(state, value, frame)
    _assign(state.assign, result, frame)
    return _output(state, _result_path(state, raw, result, frame), frame), state.next


def run_choice(state: ChoiceState, raw: JSON, frame: Frame) -> tuple[JSON, str | None]:
    """The first matching rule's Next (its Assign and, in JSONata, Output apply), else Default (the
    state's own Assign and Output apply)."""
    value: JSON = {"input": raw} if state.jsonata else _input(state, raw, frame)
    for index, branch in enumerate(state.choices):
        if branch.condition.matches(value, frame):
            _note_rule(frame, f"Choices[{index}]")
            _assign(branch.assign, value, frame)
            if state.jsonata:
                return _jsonata_output(branch.output, value, raw, frame), branch.next
            return _output(state, value, frame), branch.next
    if state.default is not None:
        _note_rule(frame, "Default")
        _assign(state.assign, value, frame)
        if state.jsonata:
            return _jsonata_output(state.output, value, raw, frame), state.default
        return _output(state, value, frame), state.default
    raise StatesError(names.NO_CHOICE_MATCHED, "No Matches!")


def run_succeed(state: SucceedState, raw: JSON, frame: Frame) -> tuple[JSON, str | None]:
    if state.jsonata:
        return _jsonata_output(state.output, {"input": raw}, raw, frame), None
    return _output(state, _input(state, raw, frame), frame), None


def run_fail(state: FailState, raw: JSON, frame: Frame) -> tuple[JSON, str | None]:
    error = state.error
    cause = state.cause
    if state.error_expression is not None:
        error = state.error_expression.evaluate({"input": raw}, frame)
    if state.cause_expression is not None:
        cause = state.cause_expression.evaluate({"input": raw}, frame)
    if state.error_path is not None:
        error = _string_from(state.error_path, raw, frame, "ErrorPath")
    if state.cause_path is not None:
        cause = _string_from(state.cause_path, raw, frame, "CausePath")
    raise StatesError(error, cause)


def _text(value: JSON) -> str:
    return value if isinstance(value, str) else to_json_text(value)


def _string_from(path: Any, raw: JSON, frame: Frame, field: str) -> str:
    try:
        value = path.evaluate(raw, frame)
    except LookupError:
        raise StatesError(names.RUNTIME, f"The JSONPath '{path.text}' specified for the field '{field}' could not "
                                         f"be found in the input '{to_json_text(raw)}'") from None
    return value if isinstance(value, str) else to_json_text(value)


def _parameter_value(path: Any, value: JSON, frame: Frame, field: str) -> JSON:
    """SecondsPath / TimestampPath: a miss has its own wording on AWS."""
    try:
        return path.evaluate(value, frame)
    except LookupError:
        raise StatesError(names.RUNTIME, f"The {field} parameter does not reference an input value: {path.text}") from None


# -- waiting ---------------------------------------------------------------------------------------

def run_wait(state: WaitState, raw: JSON, frame: Frame) -> Interpreter:
    if state.jsonata:
        return (yield from run_jsonata_wait(state, raw, frame))
    value = _input(state, raw, frame)
    now = frame.entered_time or frame.run.now()  # a Wait counts from its state's entry
    if state.seconds is not None:
        due = now + timedelta(seconds=state.seconds)
    elif state.seconds_path is not None:
        due = now + timedelta(seconds=_seconds_from_path(state.seconds_path, value, frame))
    else:
        if state.timestamp is not None:
            due = parse_timestamp(state.timestamp)
        else:
            due = _timestamp_from_path(state.timestamp_path, value, frame)
        if due is not None and (due - now).total_seconds() > MAX_WAIT_SECONDS:
            raise StatesError(names.RUNTIME, "Wait state delay is too long.")
    if due > now:
        yield Sleep(due)
    _assign(state.assign, value, frame)
    return _output(state, value, frame), state.next


def run_jsonata_wait(state: WaitState, raw: JSON, frame: Frame) -> Interpreter:
    states = {"input": raw}
    now = frame.entered_time or frame.run.now()  # a Wait counts from its state's entry
    if state.seconds is not None:
        due = now + timedelta(seconds=state.seconds)
    elif state.seconds_expression is not None:
        seconds = state.seconds_expression.evaluate(states, frame)
        due = now + timedelta(seconds=min(seconds, MAX_WAIT_SECONDS))
    else:
        stamp = state.timestamp_expression.evaluate(states, frame) if state.timestamp_expression else state.timestamp
        parsed = parse_timestamp(stamp) if isinstance(stamp, str) else None
        if parsed is None:
            raise QueryEvaluationError("The Timestamp field cannot be parsed as an ISO-8601 extended offset date-time "
                                       f"format string: {_text(stamp)}", "Timestamp")
        due = parsed
    if (due - now).total_seconds() > MAX_WAIT_SECONDS:
        raise StatesError(names.RUNTIME, "Wait state delay is too long.")
    if due > now:
        yield Sleep(due)
    _assign(state.assign, states, frame)
    return _jsonata_output(state.output, states, raw, frame), state.next


def _seconds_from_path(path: Any, value: JSON, frame: Frame) -> int:
    seconds = _parameter_value(path, value, frame, "SecondsPath")
    text = path.text
    if isinstance(seconds, bool) or not isinstance(seconds, int):
        if isinstance(seconds, float) and seconds.is_integer():
            seconds = int(seconds)
        else:
            raise StatesError(names.RUNTIME, f"The SecondsPath parameter cannot be parsed as a long value: "
                                             f"{text} == {to_json_text(seconds)}")
    if seconds < 0:
        raise StatesError(names.RUNTIME, f"The SecondsPath parameter references a negative value: {text} == {seconds}")
    if seconds > MAX_WAIT_SECONDS:
        raise StatesError(names.RUNTIME, "Wait state delay is too long.")
    return seconds


def _timestamp_from_path(path: Any, value: JSON, frame: Frame) -> datetime:
    stamp = _parameter_value(path, value, frame, "TimestampPath")
    parsed = parse_timestamp(stamp) if isinstance(stamp, str) else None
    if parsed is None:
        shown = stamp if isinstance(stamp, str) else to_json_text(stamp)
        raise StatesError(names.RUNTIME, "The TimestampPath parameter does not reference a valid ISO-8601 extended "
                                         f"offset date-time format string: {path.text} == {shown}")
    return parsed


# -- tasks -----------------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def _resource(arn: str) -> ResourceArn:
    return parse_resource(arn)


def run_task(state: TaskState, raw: JSON, frame: Frame) -> Interpreter:
    resource = _resource(state.resource)
    run = frame.run
    # `$$.Task.Token` exists where someone may answer the task: activities, callbacks and `.sync` jobs
    # (AWS records a `.sync` task completed by SendTaskSuccess with the token it passed on)
    needs_token = resource.kind == "activity" or resource.pattern in (WAIT_FOR_TASK_TOKEN, SYNC, SYNC2)
    if needs_token:
        frame.task_token = frame.resumed_token or new_task_token(frame.run.randomness)
    frame.resumed_token = None
    if state.jsonata:
        value: JSON = {"input": raw}
        payload = _arguments(state, value, raw, frame)
        timeout = _jsonata_seconds(state.timeout_seconds, state.timeout_seconds_expression, value, frame)
        heartbeat = _jsonata_seconds(state.heartbeat_seconds, state.heartbeat_seconds_expression, value, frame)
    else:
        value = _input(state, raw, frame)
        payload = _parameters(state, value, frame)
        timeout = _task_seconds(state.timeout_seconds, state.timeout_seconds_path, value, frame, "TimeoutSecondsPath")
        heartbeat = _task_seconds(state.heartbeat_seconds, state.heartbeat_seconds_path, value, frame,
                                  "HeartbeatSecondsPath")
    request = TaskRequest(
        resource=resource, payload=payload, execution_arn=run.execution.arn,
        state_machine_name=run.execution.state_machine_name, state_name=state.name,
        account=run.execution.account, region=resource.region or run.execution.region,
        attempt=frame.retry_count, task_token=frame.task_token, timeout_seconds=timeout, now=run.now(),
        test_case=run.execution.test_case,
    )
    if resource.kind == "activity":
        result = yield from _run_activity(resource, request, frame, timeout, heartbeat)
    elif resource.kind == "lambda":
        result = yield from _run_lambda_function(resource, request, frame, timeout)
    else:
        result = yield from _run_integration(resource, request, frame, timeout, heartbeat)
    return _state_output(state, raw, result, frame), state.next


def _state_output(state: Any, raw: JSON, result: JSON, frame: Frame) -> JSON:
    """A Task's, Parallel's or Map's output from its result, its Assign evaluated on the way.
    JSONata: Output (else the result) on `$states`; JSONPath: the Assign reads the result, then
    ResultSelector, ResultPath and OutputPath."""
    if state.jsonata:
        states = {"input": raw, "result": result}
        _assign(state.assign, states, frame)
        return _jsonata_output(state.output, states, result, frame)
    _assign(state.assign, result, frame)
    return _output(state, _result_path(state, raw, _select(state, result, frame), frame), frame)


def _arguments(state: Any, states: dict[str, JSON], raw: JSON, frame: Frame) -> JSON:
    """A JSONata Task's or Parallel's Arguments (the state input without them)."""
    value = state.parameters.evaluate(states, frame) if state.parameters is not None else raw
    frame.inspect("afterArguments", value)
    return value


def _jsonata_seconds(fixed: int | None, expression: Any, states: dict[str, JSON], frame: Frame) -> float | None:
    """TimeoutSeconds / HeartbeatSeconds given as a number or as a JSONata expression (a positive integer)."""
    if expression is None:
        return fixed
    return expression.evaluate(states, frame)


TASK_TOKEN_PATTERN = r"[0-9a-f]{64}"  # what new_task_token makes: how tokens are told apart in history


def new_task_token(randomness: Randomness) -> str:
    return randomness.hex_token(64)


def _task_seconds(fixed: int | None, path: Any, value: JSON, frame: Frame, field: str) -> float | None:
    if fixed is not None:
        return fixed
    if path is None:
        return None
    seconds = _evaluate_path(path, value, frame)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
        raise StatesError(names.RUNTIME, f"The {field} parameter does not reference a positive integer: "
                                         f"{path.text} == {to_json_text(seconds)}")
    return seconds


def _checked_size(result: JSON, resource: ResourceArn) -> str:
    """The result as JSON text, within the payload quota (named as AWS names the resource: the
    function ARN for a Lambda ARN, the service for an integration)."""
    culprit = resource.arn if resource.kind == "lambda" else resource.resource_type or resource.arn
    return within_payload_limit(result, culprit)


def _run_lambda_function(resource: ResourceArn, request: TaskRequest, frame: Frame, timeout: float | None) -> Interpreter:
    details: dict[str, Any] = {"resource": resource.arn, "input": to_json_text(request.payload),
                               "inputDetails": {"truncated": False}}
    if timeout is not None:
        details["timeoutInSeconds"] = int(timeout)
    frame.emit("LambdaFunctionScheduled", "lambdaFunctionScheduledEventDetails", details)
    frame.emit("LambdaFunctionStarted")
    try:
        result = yield Invoke(request, timeout)
        text = _checked_size(result, resource)
    except StatesError as error:
        kind = "LambdaFunctionTimedOut" if error.error == names.TIMEOUT else "LambdaFunctionFailed"
        frame.emit(kind, f"{kind[0].lower()}{kind[1:]}EventDetails", _error_details(error))
        raise
    frame.emit("LambdaFunctionSucceeded", "lambdaFunctionSucceededEventDetails",
               {"output": text, "outputDetails": {"truncated": False}})
    return result


def _run_integration(resource: ResourceArn, request: TaskRequest, frame: Frame, timeout: float | None,
                     heartbeat: float | None) -> Interpreter:
    ids = {"resourceType": resource.resource_type, "resource": resource.resource}
    scheduled: dict[str, Any] = {**ids, "region": request.region, "parameters": to_json_text(request.payload)}
    if timeout is not None:
        scheduled["timeoutInSeconds"] = int(timeout)
    if heartbeat is not None:
        scheduled["heartbeatInSeconds"] = int(heartbeat)
    frame.emit("TaskScheduled", "taskScheduledEventDetails", scheduled)
    started_at = frame.run.now()
    frame.emit("TaskStarted", "taskStartedEventDetails", dict(ids), timestamp=started_at)
    try:
        settled = resource.pattern != REQUEST_RESPONSE and (yield AnswersWholeTask(request))
        result = yield Invoke(request, timeout)
        if resource.pattern in (WAIT_FOR_TASK_TOKEN, SYNC, SYNC2) and not settled:
            frame.emit("TaskSubmitted", "taskSubmittedEventDetails",
                       {**ids, "output": to_json_text(result), "outputDetails": {"truncated": False}})
            if resource.pattern == WAIT_FOR_TASK_TOKEN:
                result = yield AwaitToken(request.task_token or "", timeout, heartbeat, counted_from=started_at)
            else:
                result = yield AwaitCompletion(request, result, timeout, counted_from=started_at)
        text = _checked_size(result, resource)
    except StatesError as error:
        kind = "TaskTimedOut" if error.error in (names.TIMEOUT, names.HEARTBEAT_TIMEOUT) else "TaskFailed"
        frame.emit(kind, f"{kind[0].lower()}{kind[1:]}EventDetails", {**ids, **_error_details(error)})
        raise
    frame.emit("TaskSucceeded", "taskSucceededEventDetails", {**ids, "output": text, "outputDetails": {"truncated": False}})
    return result


def _run_activity(resource: ResourceArn, request: TaskRequest, frame: Frame, timeout: float | None,
                  heartbeat: float | None) -> Interpreter:
    text = to_json_text(request.payload)
    mocked = yield AnswersWholeTask(request)
    if not mocked:
        yield CheckActivity(resource.arn)
    details: dict[str, Any] = {"resource": resource.arn, "input": text, "inputDetails": {"truncated": False}}
    if timeout is not None:
        details["timeoutInSeconds"] = int(timeout)
    if heartbeat is not None:
        details["heartbeatInSeconds"] = int(heartbeat)
    frame.emit("ActivityScheduled", "activityScheduledEventDetails", details)
    token = frame.task_token or ""
    try:
        if mocked:
            frame.emit("ActivityStarted", "activityStartedEventDetails", {})
            result = yield Invoke(request, timeout)
        else:
            worker = yield ScheduleActivity(resource.arn, token, text, timeout, heartbeat)
            frame.emit("ActivityStarted", "activityStartedEventDetails", {"workerName": worker} if worker else {})
            result = yield AwaitToken(token, timeout, heartbeat)
        output = _checked_size(result, resource)
    except StatesError as error:
        kind = "ActivityTimedOut" if error.error in (names.TIMEOUT, names.HEARTBEAT_TIMEOUT) else "ActivityFailed"
        frame.emit(kind, f"{kind[0].lower()}{kind[1:]}EventDetails", _error_details(error))
        raise
    frame.emit("ActivitySucceeded", "activitySucceededEventDetails", {"output": output, "outputDetails": {"truncated": False}})
    return result


def _error_details(error: StatesError) -> dict[str, str]:
    return {key: value for key, value in (("error", error.error), ("cause", error.cause)) if value is not None}


# -- Parallel and Map --------------------------------------------------------------------------------

def run_parallel(state: ParallelState, raw: JSON, frame: Frame) -> Interpreter:
    if state.jsonata:
        value = _arguments(state, {"input": raw}, raw, frame)
    else:
        value = _parameters(state, _input(state, raw, frame), frame)
    frame.emit("ParallelStateStarted")
    branches = [_branch_runner(branch, value, frame) for branch in state.branches]
    try:
        results = yield Fork(branches, interleave=True)
    except StatesError as error:
        raise BranchFailure(error.error, error.cause) from None
    within_payload_limit(results, state.name)
    return _state_output(state, raw, results, frame), state.next


def _branch_runner(branch: StateMachine, value: JSON, frame: Frame) -> Callable[[], Interpreter]:
    return lambda: run_machine(branch, value, frame.child(interleave=True))


def run_map(state: MapState, raw: JSON, frame: Frame) -> Interpreter:
    if state.processor_mode == "DISTRIBUTED":
        return (yield from run_distributed_map(state, raw, frame))
    value: JSON = {"input": raw} if state.jsonata else _input(state, raw, frame)
    items = _items(state, value, frame)
    max_concurrency = _max_concurrency(state, value, frame)
    frame.emit("MapStateStarted", "mapStateStartedEventDetails", {"length": len(items)})
    iterations = [_iteration_runner(state, value, index, item, frame) for index, item in enumerate(items)]
    try:
        results = yield Fork(iterations, max_concurrency=max_concurrency)
    except StatesError as error:
        raise BranchFailure(error.error, error.cause) from None
    frame.emit("MapStateSucceeded")
    within_payload_limit(results, state.name)
    return _state_output(state, raw, results, frame), state.next


def run_distributed_map(state: MapState, raw: JSON, frame: Frame) -> Interpreter:
    """A Distributed Map: a map run whose items run as child executions (histories of their own)."""
    value: JSON = {"input": raw} if state.jsonata else _input(state, raw, frame)
    # An ItemReader's items are read once the map run has started (MapStateStarted says length 0 then,
    # as AWS's histories do), and ItemsPath does not apply to them.
    items: JSON = []
    if state.item_reader is None:
        items = _items(state, value, frame)
    max_concurrency = _max_concurrency(state, value, frame)
    frame.emit("MapStateStarted", "mapStateStartedEventDetails", {"length": len(items)})
    tolerated_count = _tolerated_failure_count(state, value, frame)
    tolerated_percentage = _tolerated_failure_percentage(state, value, frame)
    run = frame.run
    execution = run.execution
    label = state.label or state.name
    run_id = run.randomness.uuid()
    map_run = MapRun(
        arn=f"arn:{partition_for(execution.region)}:states:{execution.region}:{execution.account}:mapRun:{execution.state_machine_name}/{label}:{run_id}",
        execution_arn=execution.arn,
        state_machine_arn=f"{execution.state_machine_arn}/{label}",
        start_date=run.now(),
        max_concurrency=max_concurrency,
        tolerated_failure_percentage=tolerated_percentage or 0.0,
        tolerated_failure_count=tolerated_count or 0,
    )
    frame.emit("MapRunStarted", "mapRunStartedEventDetails", {"mapRunArn": map_run.arn})
    try:
        if state.item_reader is not None:
            items = yield from _read_items(state.item_reader, value, frame)
        selected = [_selected_item(state, value, index, item, frame) for index, item in enumerate(items)]
        if state.item_selector is not None:
            frame.inspect("afterItemSelector", selected)
        inputs = _batched(state, value, selected, frame)
        if state.item_batcher is not None:
            frame.inspect("afterItemBatcher", inputs)
        map_run.total_items = len(inputs)
        try:
            results = yield RunMapRun(map_run, state.item_processor, inputs, state.execution_type or "STANDARD",
                                      tolerated_count, tolerated_percentage)
        except StatesError:
            if state.result_writer is not None and state.result_writer.resource:  # what ran is written all the same
                yield from _write_results(state.result_writer, value, map_run, frame)
            raise
        if state.result_writer is not None and state.result_writer.resource:
            results = yield from _write_results(state.result_writer, value, map_run, frame)
        elif state.result_writer is not None:  # a WriterConfig alone: the results, transformed, exported nowhere
            results = previewed_results(state.result_writer.transformation, map_run.executions, results)
    except StatesError as error:
        frame.emit("MapRunFailed", "mapRunFailedEventDetails", _error_details(error))
        raise BranchFailure(error.error, error.cause) from None
    frame.emit("MapRunSucceeded")
    frame.emit("MapStateSucceeded")
    within_payload_limit(results, state.name)
    return _state_output(state, raw, results, frame), state.next


def _items(state: MapState, value: JSON, frame: Frame) -> list[JSON]:
    """The items ItemsPath selects (JSONata: Items gives), the whole input without one; an array."""
    if state.jsonata:
        items = state.items.evaluate(value, frame) if state.items is not None else value["input"]
        if not isinstance(items, list):
            raise QueryEvaluationError(f"Map state input must be an array but was: {to_json_text(items)}", "Items")
        return items
    items = value
    if state.items_path is not None:
        items = _evaluate_path(state.items_path, value, frame)
    if not isinstance(items, list):
        # AWS (recorded through TestState) names the path from its root: `$$.Execution.Input` as `$.Execution.Input`
        text = state.items_path.text if state.items_path is not None else "$"
        shown = text[1:] if text.startswith("$$") else text
        raise StatesError(names.RUNTIME, f'Reference path "{shown}" must point to array.')
    if state.items_path is not None:
        frame.inspect("afterItemsPath", items)  # only items are reported (TestState, recorded)
    return items


def _max_concurrency(state: MapState, value: JSON, frame: Frame) -> int:
    if state.max_concurrency_expression is not None:
        return state.max_concurrency_expression.evaluate(value, frame)
    if state.max_concurrency_path is not None:
        return _max_concurrency_from_path(state, value, frame)
    return state.max_concurrency


def _read_items(reader: ItemReader, value: JSON, frame: Frame) -> Interpreter:
    """The items an ItemReader reads from S3 (or those a TestState caller supplied instead)."""
    if frame.run.item_reader_items is not None:
        return frame.run.item_reader_items
    config = reader.reader_config
    max_items: JSON = config.max_items
    if config.max_items_expression is not None:
        max_items = config.max_items_expression.evaluate(value, frame)
    if config.max_items_path is not None:
        max_items = _evaluate_path(config.max_items_path, value, frame)
    limit = item_limit(max_items, config.max_items_path.text if config.max_items_path is not None else None)
    parameters = reader.parameters.evaluate(value, frame) if reader.parameters is not None else {}
    if not reader.resource.endswith(":listObjectsV2"):
        answer = yield from _call_s3(reader.resource, parameters, frame, names.ITEM_READER_FAILED)
        return items_from_object(_body(answer), config, limit)
    listing = yield from _listed_objects(reader.resource, parameters, limit, frame)
    if config.transformation != "LOAD_AND_FLATTEN":
        return listing
    items: list[JSON] = []
    for listed in listing:
        if len(items) >= limit:
            break
        if str(listed["Key"]).endswith("/"):  # a folder has no data
            continue
        location = {"Bucket": parameters.get("Bucket") if isinstance(parameters, dict) else None, "Key": listed["Key"]}
        answer = yield from _call_s3(_GET_OBJECT, location, frame, names.ITEM_READER_FAILED)
        items.extend(items_from_object(_body(answer), config, limit - len(items)))
    return items


def _listed_objects(resource: str, parameters: JSON, limit: int, frame: Frame) -> Interpreter:
    """Every object ListObjectsV2 names (page after page), up to `limit`, as Map items."""
    contents: list[Any] = []
    request = parameters
    while True:
        page = yield from _call_s3(resource, request, frame, names.ITEM_READER_FAILED)
        page = page if isinstance(page, dict) else {}
        contents.extend(page.get("Contents") or [])
        if len(contents) >= limit or not page.get("IsTruncated") or not isinstance(parameters, dict):
            return listed_items(contents[:limit])
        request = {**parameters, "ContinuationToken": page.get("NextContinuationToken")}


def _write_results(writer: ResultWriter, value: JSON, map_run: MapRun, frame: Frame) -> Interpreter:
    """Write the child executions' results and the manifest to S3; returns the Map's result."""
    parameters = writer.parameters.evaluate(value, frame) if writer.parameters is not None else {}
    bucket, folder = destination(parameters, map_run.arn)
    files, manifest = result_files(bucket, folder, map_run.arn, map_run.executions)
    for written in (*files, manifest):
        # PutObject stores a JSON Body as its compact JSON text: `written.size` bytes.
        yield from _call_s3(writer.resource, {"Bucket": bucket, "Key": written.key, "Body": written.body},
                            frame, names.RESULT_WRITER_FAILED)
    map_run.results_written = len(map_run.executions)
    return map_output(map_run.arn, bucket, manifest.key)


def _call_s3(resource: str, payload: JSON, frame: Frame, failure: str) -> Interpreter:
    """Make an ItemReader's or ResultWriter's S3 call through the task resources (no mock answers it:
    it is no Task). Its failure is the reader's or writer's, with S3's cause."""
    run = frame.run
    execution = run.execution
    request = TaskRequest(
        resource=_resource(s3_call(resource)), payload=payload, execution_arn=execution.arn,
        state_machine_name=execution.state_machine_name, state_name=frame.state_name,
        account=execution.account, region=execution.region, now=run.now(),
    )
    try:
        return (yield Invoke(request))
    except StatesError as error:
        raise StatesError(failure, error.cause) from None


def _body(answer: JSON) -> str:
    body = answer.get("Body") if isinstance(answer, dict) else None
    return body if isinstance(body, str) else ""


def _selected_item(state: MapState, value: JSON, index: int, item: JSON, frame: Frame) -> JSON:
    if state.item_selector is None:
        return item
    scope = frame.child(map_item=(index, item))
    scope.state_name, scope.entered_time = frame.state_name, frame.entered_time
    return state.item_selector.evaluate(value, scope)


def _batched(state: MapState, value: JSON, items: list[JSON], frame: Frame) -> list[JSON]:
    """ItemBatcher: child inputs of {"Items": [...], "BatchInput": ...}, MaxItemsPerBatch items each."""
    batcher = state.item_batcher
    if batcher is None:
        return items
    size: JSON = batcher.max_items_per_batch
    if batcher.max_items_per_batch_expression is not None:
        size = batcher.max_items_per_batch_expression.evaluate(value, frame)
    if batcher.max_items_per_batch_path is not None:
        size = _evaluate_path(batcher.max_items_per_batch_path, value, frame)
        if isinstance(size, str) and size.isdigit():  # a number given as text is taken, as for MaxItemsPath
            size = int(size)
    size = size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else len(items) or 1
    batch_input = batcher.batch_input.evaluate(value, frame) if batcher.batch_input is not None else None
    batches = []
    for start in range(0, len(items), size):
        batch: dict[str, JSON] = {"Items": items[start:start + size]}
        if batch_input is not None:
            batch["BatchInput"] = batch_input
        batches.append(batch)
    return batches


def _tolerated_failure_count(state: MapState, value: JSON, frame: Frame) -> int | None:
    count: JSON = state.tolerated_failure_count
    if state.tolerated_failure_count_expression is not None:
        count = state.tolerated_failure_count_expression.evaluate(value, frame)
    if state.tolerated_failure_count_path is not None:
        count = _evaluate_path(state.tolerated_failure_count_path, value, frame)
        if isinstance(count, bool) or not isinstance(count, int):
            raise StatesError(names.RUNTIME, f'The ToleratedFailureCountPath field refers to value "{_shown(count)}" '
                                             f"which is not a valid integer: {state.tolerated_failure_count_path.text}")
    if count is not None and count < 0:
        raise StatesError(names.RUNTIME, "ToleratedFailureCount cannot be negative.")
    return count


def _tolerated_failure_percentage(state: MapState, value: JSON, frame: Frame) -> float | None:
    percentage: JSON = state.tolerated_failure_percentage
    if state.tolerated_failure_percentage_expression is not None:
        percentage = state.tolerated_failure_percentage_expression.evaluate(value, frame)
    if state.tolerated_failure_percentage_path is not None:
        percentage = _evaluate_path(state.tolerated_failure_percentage_path, value, frame)
        if isinstance(percentage, bool) or not isinstance(percentage, (int, float)):
            raise StatesError(names.RUNTIME, "The ToleratedFailurePercentagePath field refers to value "
                                             f'"{_shown(percentage)}" which is not a valid float: '
                                             f"{state.tolerated_failure_percentage_path.text}")
    if percentage is not None and not 0 <= percentage <= 100:
        raise StatesError(names.RUNTIME, "ToleratedFailurePercentage must be between 0 and 100.")
    return percentage


def _shown(value: JSON) -> str:
    return value if isinstance(value, str) else to_json_text(value)


def _max_concurrency_from_path(state: MapState, value: JSON, frame: Frame) -> int:
    number = _evaluate_path(state.max_concurrency_path, value, frame)
    if isinstance(number, bool) or not isinstance(number, int) or number < 0:
        raise StatesError(names.RUNTIME, f'The MaxConcurrencyPath field refers to value "{_shown(number)}" which is not a '
                                         f"valid integer: {state.max_concurrency_path.text}")
    return number


def _iteration_runner(state: MapState, value: JSON, index: int, item: JSON, frame: Frame) -> Callable[[], Interpreter]:
    def iteration() -> Interpreter:
        child = frame.child(map_item=(index, item))
        child.state_name, child.entered_time = frame.state_name, frame.entered_time
        ids = {"name": state.name, "index": index}
        child.emit("MapIterationStarted", "mapIterationStartedEventDetails", ids)
        try:
            item_input = state.item_selector.evaluate(value, child) if state.item_selector is not None else item
            child.map_item = None
            output = yield from run_machine(state.item_processor, item_input, child)
        except StatesError:
            child.emit("MapIterationFailed", "mapIterationFailedEventDetails", ids)
            raise
        except Aborted:
            child.emit("MapIterationAborted", "mapIterationAbortedEventDetails", ids)
            raise
        child.emit("MapIterationSucceeded", "mapIterationSucceededEventDetails", ids)
        return output

    return iteration


SIMPLE_HANDLERS: dict[str, Callable[[Any, JSON, Frame], tuple[JSON, str | None]]] = {
    "Pass": run_pass, "Choice": run_choice, "Succeed": run_succeed, "Fail": run_fail,
}
GENERATOR_HANDLERS: dict[str, Callable[[Any, JSON, Frame], Interpreter]] = {
    "Wait": run_wait, "Task": run_task, "Parallel": run_parallel, "Map": run_map,
}
ENTERED = {kind: f"{kind}StateEntered" for kind in (*SIMPLE_HANDLERS, *GENERATOR_HANDLERS)}
EXITED = {kind: f"{kind}StateExited" for kind in (*SIMPLE_HANDLERS, *GENERATOR_HANDLERS)}
ABORTABLE = frozenset({"Task", "Wait", "Parallel", "Map"})
