"""The TestState API: one attempt at one state, reported with its data-flow steps.

Runs the real interpreter on a throw-away run (no execution is recorded): Retry and Catch are
not carried out but reported (`RETRIABLE`, `CAUGHT_ERROR` with the Catcher's output and next
state), Wait states do not wait, and a `mock` stands in for the Task's resource.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from emulator.asl.errors import StatesError
from emulator.asl.model import JSON, State, StateMachine
from emulator.engine.effects import Interpreter, Sleep
from emulator.engine.execution import Execution
from emulator.engine.frame import Frame, Run, to_json_text
from emulator.engine.interpreter import catch_output, matching_catcher, matching_retrier, run_attempt, with_runtime_prefix
from emulator.engine.scheduler import Engine
from emulator.resources.base import TaskRequest, TaskResources

TEST_MACHINE_NAME = "TestStateMachine"
INSPECTED_STEPS = ("input", "afterInputPath", "afterParameters", "result", "afterResultSelector", "afterResultPath")


class MockedResult:
    """A TestState `mock`: the Task's resource returns `result` (JSON text) or fails with `errorOutput`."""

    def __init__(self, mock: dict[str, Any]) -> None:
        self._mock = mock

    def matches(self, request: TaskRequest) -> bool:
        return True

    def invoke(self, request: TaskRequest) -> Any:
        failure = self._mock.get("errorOutput")
        if failure is not None:
            raise StatesError(failure.get("error") or "", failure.get("cause"))
        return json.loads(self._mock.get("result") or "null")


def test_state(engine: Engine, state: State, input_text: str, *, role_arn: str, account: str, region: str,
               inspection_level: str = "INFO", mock: dict[str, Any] | None = None,
               timeout: float | None = 70.0) -> dict[str, Any]:
    """Run `state` once on `input_text` (JSON) and answer in TestState's output shape."""
    execution = Execution(
        arn=f"arn:aws:states:{region}:{account}:execution:{TEST_MACHINE_NAME}:{uuid.uuid4()}",
        name=str(uuid.uuid4()),
        state_machine_arn=f"arn:aws:states:{region}:{account}:stateMachine:{TEST_MACHINE_NAME}",
        state_machine_name=TEST_MACHINE_NAME,
        machine=StateMachine(start_at=state.name, states={state.name: state}),
        definition="", input=input_text, start_date=engine.clock.now(),
        account=account, region=region, role_arn=role_arn,
    )
    run = Run(execution, engine.clock.now)
    if mock is not None:
        run.resources = TaskResources([MockedResult(mock)])
    frame = Frame(run, 0)
    frame.inspection = {}
    value = run.execution_context["Input"]
    frame.inspect("input", value)
    answer, _ = engine.run_detached(run, _without_waiting(_attempt(state, value, frame)), timeout)
    if inspection_level in ("DEBUG", "TRACE"):
        answer["inspectionData"] = {step: frame.inspection[step] for step in INSPECTED_STEPS if step in frame.inspection}
    return answer


def _attempt(state: State, value: JSON, frame: Frame) -> Interpreter:
    frame.state_name = state.name
    frame.entered_time = frame.run.now()
    try:
        output, next_name = yield from run_attempt(state, value, frame)
    except StatesError as raised:
        error = with_runtime_prefix(raised, frame)
        failure = {"error": error.error, **({"cause": error.cause} if error.cause is not None else {})}
        if matching_retrier(state, error) is not None:
            return {"status": "RETRIABLE", **failure}
        catcher = matching_catcher(state, error)
        if catcher is not None:
            output = catch_output(catcher, value, error)
            return {"status": "CAUGHT_ERROR", **failure, "output": to_json_text(output), "nextState": catcher.next}
        return {"status": "FAILED", **failure}
    answer: dict[str, Any] = {"status": "SUCCEEDED", "output": to_json_text(output)}
    if next_name is not None:
        answer["nextState"] = next_name
    return answer


def _without_waiting(gen: Interpreter) -> Interpreter:
    """Pass effects through, but answer Sleep at once: TestState does not wait."""
    reply: Any = None
    error: BaseException | None = None
    while True:
        try:
            effect = gen.throw(error) if error is not None else gen.send(reply)
        except StopIteration as stop:
            return stop.value
        if isinstance(effect, Sleep):
            reply, error = None, None
            continue
        try:
            reply, error = (yield effect), None
        except StatesError as failure:
            reply, error = None, failure
