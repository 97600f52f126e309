"""The TestState API: one attempt at one state, reported with its data-flow steps.

Runs the real interpreter on a throw-away run (no execution is recorded): Retry and Catch are
not carried out but reported (`RETRIABLE`, `CAUGHT_ERROR` with the Catcher's output and next
state, and which Retrier or Catcher it was), and Wait states do not wait. A `mock` stands in for
a Task's resource, or for the branches of a Parallel or the iterations of a Map (the mocked
result is then the state's whole result). A caller's `context` replaces the Context Object, and
a `StateConfiguration` says where in a longer run this attempt stands (retries already made,
Map iterations already failed). A failure's cause is the error's own, without the execution's
"An error occurred while executing the state ..." prefix.
"""

from __future__ import annotations

import json
from typing import Any

from msgspec import Struct

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.model import JSON, BaseState, MapState, ParallelState, Retrier, State, StateMachine
from sfn_emulator.asl.retrying import backoff_seconds
from sfn_emulator.engine.effects import Fork, Interpreter, RunMapRun, Sleep
from sfn_emulator.engine.execution import Execution
from sfn_emulator.engine.frame import Frame, Run, to_json_text
from sfn_emulator.engine.interpreter import caught_output, matching_catcher, matching_retrier, run_attempt
from sfn_emulator.engine.scheduler import Engine
from sfn_emulator.engine.variables import Variables
from sfn_emulator.protocol.partitions import partition_for
from sfn_emulator.resources.base import TaskRequest, TaskResources
from sfn_emulator.resources.outcomes import BoundCall, whole_task_call
from sfn_emulator.resources.http_trace import HttpExchange

TEST_MACHINE_NAME = "TestStateMachine"
INSPECTED_STEPS = ("input", "afterInputPath", "afterParameters", "afterArguments", "afterItemsPath",
                   "afterItemsPointer", "afterItemSelector", "afterItemBatcher", "result", "afterResultSelector",
                   "afterResultPath")
THRESHOLD_EXCEEDED_CAUSE = "The specified tolerated failure threshold was exceeded"
TOO_MANY_FAILED_ITERATIONS = "Map iteration failure count must be less than or equal to the number of Map iterations"


class TestStateRefused(Exception):
    """A request TestState refuses once the state has shown what it holds (e.g. more failed Map
    iterations than the Map has items); `message` is AWS's ValidationException message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class StateConfiguration(Struct, frozen=True):
    """TestState's `stateConfiguration`, as the engine uses it."""

    retrier_retry_count: int = 0  # retries the matching Retrier has already made
    map_iteration_failure_count: int = 0  # Map iterations that failed (checked against the tolerance)
    map_item_reader_data: str | None = None  # what a Map's ItemReader reads, as found in its source


class MockedResult:
    """A TestState `mock` for a Task: its resource returns `result` (JSON text) or fails with `errorOutput`.
    The mocked answer is the task's whole result, for callbacks, `.sync` and activities too."""

    def __init__(self, mock: dict[str, Any]) -> None:
        self._mock = mock

    def bind(self, request: TaskRequest) -> BoundCall:
        return whole_task_call(request, self._answer)

    def _answer(self) -> JSON:
        raise_mocked_error(self._mock)
        return mocked_value(self._mock)


def mocked_value(mock: dict[str, Any]) -> JSON:
    return json.loads(mock.get("result") or "null")


def raise_mocked_error(mock: dict[str, Any]) -> None:
    failure = mock.get("errorOutput")
    if failure is not None:
        raise StatesError(failure.get("error") or "", failure.get("cause"))


class TestStateFrame(Frame):
    """The frame of the tested state: its Context Object is the caller's, when one was given."""

    __slots__ = ("supplied_context", "http_exchange")

    def __init__(self, run: Run, supplied_context: dict[str, JSON] | None, variables: dict[str, JSON]) -> None:
        super().__init__(run, 0, variables=Variables(values=variables))
        self.supplied_context = supplied_context
        self.inspection = {}
        self.http_exchange: HttpExchange | None = None

    def inspect_http(self, exchange: HttpExchange) -> None:
        self.http_exchange = exchange

    @property
    def context_object(self) -> dict[str, JSON]:
        return self.supplied_context if self.supplied_context is not None else super().context_object

    def child(self, *, interleave: bool = False, map_item: tuple[int, JSON] | None = None,
              place: tuple[str, int] | None = None) -> Frame:
        """A Map item's scope (its ItemSelector): the caller's Context Object, with the item's `Map`."""
        if self.supplied_context is None:
            return super().child(interleave=interleave, map_item=map_item, place=place)
        return _ItemFrame(self.run, self.supplied_context, map_item, self.variables.inner())


class _ItemFrame(Frame):
    """A scope inside the tested state when the caller supplied the Context Object."""

    __slots__ = ("supplied_context",)

    def __init__(self, run: Run, supplied_context: dict[str, JSON], map_item: tuple[int, JSON] | None,
                 variables: Variables) -> None:
        super().__init__(run, 0, nested=True, map_item=map_item, variables=variables)
        self.supplied_context = supplied_context

    @property
    def context_object(self) -> dict[str, JSON]:
        if self.map_item is None:
            return self.supplied_context
        return {**self.supplied_context, "Map": {"Item": {"Index": self.map_item[0], "Value": self.map_item[1]}}}


def run_single_state(engine: Engine, state: State, input_text: str, input_value: JSON, *, role_arn: str,
                     account: str, region: str, inspection_level: str = "INFO", mock: dict[str, Any] | None = None,
                     context: dict[str, JSON] | None = None,
                     configuration: StateConfiguration = StateConfiguration(),
                     variables: dict[str, JSON] | None = None, timeout: float | None = 70.0,
                     reveal_secrets: bool = False) -> dict[str, Any]:
    """Run `state` once on `input_text` (JSON, which the caller read into `input_value`), with the
    workflow variables `variables` in scope, and answer in TestState's output shape. TRACE adds an HTTP
    Task's request and response to DEBUG's data (what its connection added only with `reveal_secrets`)."""
    execution = Execution(
        # AWS runs a tested state as an express execution: its Context Object's Execution.Id says so.
        arn=f"arn:{partition_for(region)}:states:{region}:{account}:express:{TEST_MACHINE_NAME}:{engine.ids.uuid()}",
        name=engine.ids.uuid(),
        state_machine_arn=f"arn:{partition_for(region)}:states:{region}:{account}:stateMachine:{TEST_MACHINE_NAME}",
        state_machine_name=TEST_MACHINE_NAME,
        machine=StateMachine(start_at=state.name, states={state.name: state}),
        definition="", input=input_text, decoded_input=input_value, start_date=engine.clock.now(),
        account=account, region=region, role_arn=role_arn,
    )
    run = Run(execution, engine.clock.now)
    del run.execution_context["RedriveCount"]  # a TestState run is never redriven: AWS's has no such field
    if mock is not None:
        run.resources = TaskResources([MockedResult(mock)])
    run.item_reader_data = configuration.map_item_reader_data
    frame = TestStateFrame(run, context, variables or {})
    value = run.execution_context["Input"]
    frame.inspect("input", value)
    attempt = _Attempt(state, frame, mock, configuration)
    try:
        answer, _ = engine.run_detached(run, attempt.answering_locally(attempt.run(value)), timeout)
    except TimeoutError:
        # "If the execution of a state exceeds this duration, it fails with the States.Timeout error."
        # (API reference, TestState; AWS's duration is five minutes, `timeout` here.)
        return {"status": "FAILED", "error": names.TIMEOUT}
    if attempt.refusal is not None:
        raise TestStateRefused(attempt.refusal)
    if inspection_level in ("DEBUG", "TRACE"):
        answer["inspectionData"] = attempt.inspection_data()
    if inspection_level == "TRACE" and frame.http_exchange is not None:
        answer["inspectionData"].update(frame.http_exchange.inspection(reveal_secrets))
    return answer


class _Attempt:
    """One attempt at the tested state, and what TestState reports of it."""

    def __init__(self, state: State, frame: TestStateFrame, mock: dict[str, Any] | None,
                 configuration: StateConfiguration) -> None:
        self.state = state
        self.frame = frame
        self.mock = mock if isinstance(state, (MapState, ParallelState)) else None  # Task mocks are resources
        self.configuration = configuration
        self.error_details: dict[str, int] = {}
        self.map_settings: dict[str, JSON] = {}
        self.refusal: str | None = None  # why the request is refused after all (see TestStateRefused)

    def run(self, value: JSON) -> Interpreter:
        state, frame = self.state, self.frame
        frame.state_name = state.name
        frame.entered_time = frame.run.now()
        frame.retry_count = self.configuration.retrier_retry_count
        frame.counts_retries = hasattr(state, "retry")
        try:
            output, next_name = yield from run_attempt(state, value, frame)
        except StatesError as raised:
            # No "An error occurred while executing the state ... (entered at the event id #N)." before the
            # cause: that names an event of an execution's history, and a tested state has none (recorded:
            # `Reference path "$" must point to array.`).
            return self._failed(value, raised)
        self._bind_assigned()
        answer: dict[str, Any] = {"status": "SUCCEEDED", "output": to_json_text(output)}
        if next_name is not None:
            answer["nextState"] = next_name
        return answer

    def _failed(self, value: JSON, error: StatesError) -> dict[str, Any]:
        failure = {"error": error.error, **({"cause": error.cause} if error.cause is not None else {})}
        retrier = matching_retrier(self.state, error)
        if retrier is not None:
            self.error_details["retryIndex"] = self.state.retry.index(retrier)
            retries = self.configuration.retrier_retry_count
            if retries < retrier.max_attempts:
                self.error_details["retryBackoffIntervalSeconds"] = _backoff_seconds(retrier, retries)
                return {"status": "RETRIABLE", **failure}
        catcher = matching_catcher(self.state, error)
        if catcher is not None:
            self.error_details["catchIndex"] = self.state.catch.index(catcher)
            output = caught_output(self.state, catcher, value, error, self.frame)
            self._bind_assigned()
            return {"status": "CAUGHT_ERROR", **failure, "output": to_json_text(output), "nextState": catcher.next}
        return {"status": "FAILED", **failure}

    def _bind_assigned(self) -> None:
        """Bind what the state's (or the Catcher's) Assign evaluated to, as leaving the state does."""
        if self.frame.assigned is not None:
            self.frame.variables.assign(self.frame.assigned)
            self.frame.assigned = None

    def inspection_data(self) -> dict[str, Any]:
        """The data-flow steps taken; a mocked Map or Parallel ran no branch or iteration, so AWS
        reports no raw `result` for it (the mock shows from `afterResultSelector` on). `variables`
        is "the set of workflow variables after execution of the state", those given with the
        request and those the state assigned (API reference, InspectionData), when there are any."""
        steps = self.frame.inspection or {}
        data: dict[str, Any] = {step: steps[step] for step in INSPECTED_STEPS if step in steps}
        if self.mock is not None:
            data.pop("result", None)
        data.update(self.map_settings)
        variables = self.frame.variables.visible()
        if variables:
            data["variables"] = to_json_text(variables)
        if self.error_details:
            data["errorDetails"] = self.error_details
        return data

    # -- the world around the state ------------------------------------------------------------
    def answering_locally(self, gen: Interpreter) -> Interpreter:
        """Pass effects through, but answer Sleep at once (TestState does not wait) and, under a
        mock, the branches of a Parallel and the iterations of a Map with the mocked result."""
        reply: Any = None
        error: BaseException | None = None
        while True:
            try:
                effect = gen.throw(error) if error is not None else gen.send(reply)
            except StopIteration as stop:
                return stop.value
            reply, error = None, None
            if isinstance(effect, Sleep):
                continue
            if self.mock is not None and isinstance(effect, (Fork, RunMapRun)):
                try:
                    reply = self._mocked_children(effect)
                except StatesError as failure:
                    error = failure
                continue
            try:
                reply = yield effect
            except StatesError as failure:
                error = failure

    def _mocked_children(self, effect: Fork | RunMapRun) -> JSON:
        assert self.mock is not None
        if isinstance(effect, RunMapRun):
            self._note_map_settings(effect.map_run.max_concurrency, effect.tolerated_failure_count,
                                    effect.tolerated_failure_percentage)
        elif isinstance(self.state, MapState):
            self._note_map_settings(effect.max_concurrency, None, None)
        if isinstance(self.state, MapState):
            iterations = len(effect.inputs) if isinstance(effect, RunMapRun) else len(effect.children)
            if self.configuration.map_iteration_failure_count > iterations:
                self.refusal = TOO_MANY_FAILED_ITERATIONS
                raise StatesError(names.RUNTIME, TOO_MANY_FAILED_ITERATIONS)  # ends the attempt; then refused
        raise_mocked_error(self.mock)
        if isinstance(effect, RunMapRun) and _beyond_tolerance(
                self.configuration.map_iteration_failure_count, len(effect.inputs),
                effect.tolerated_failure_count, effect.tolerated_failure_percentage):
            raise StatesError(names.EXCEED_TOLERATED_FAILURE_THRESHOLD, THRESHOLD_EXCEEDED_CAUSE)
        return mocked_value(self.mock)

    def _note_map_settings(self, max_concurrency: int, count: int | None, percentage: float | None) -> None:
        self.map_settings["maxConcurrency"] = max_concurrency
        if count is not None:
            self.map_settings["toleratedFailureCount"] = count
        if percentage is not None:
            self.map_settings["toleratedFailurePercentage"] = percentage


def _beyond_tolerance(failed: int, items: int, count: int | None, percentage: float | None) -> bool:
    """Whether `failed` iterations exceed the Map's tolerance; a Map without one tolerates any count
    here, as AWS's TestState does."""
    if count is not None and failed > count:
        return True
    return percentage is not None and items > 0 and failed * 100 / items > percentage


def _backoff_seconds(retrier: Retrier, retries: int) -> int:
    """The wait before the next retry in whole seconds (no jitter: TestState reports the nominal interval)."""
    return int(backoff_seconds(retrier, retries))


def find_state(machine: StateMachine, name: str) -> BaseState | None:
    """The state `name` anywhere in `machine`: its own states, then those of its Parallel branches and
    Map processors, depth first."""
    if name in machine.states:
        return machine.states[name]
    for state in machine.states.values():
        inner = state.branches if isinstance(state, ParallelState) else (
            (state.item_processor,) if isinstance(state, MapState) else ())
        for branch in inner:
            found = find_state(branch, name)
            if found is not None:
                return found
    return None
