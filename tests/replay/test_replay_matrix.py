"""Histories the emulator recorded, for every state type, integration pattern and error path, replayed
against the same definition (they match) and against edited ones (the first divergence is reported
where it happens). The replays run with no callable, activity worker or child machine: every Task
answer comes from the recording."""

from __future__ import annotations

import copy
import json
import threading
from typing import Any, Callable

import pytest

from sfn_emulator import Emulator, Settings
from sfn_emulator.resources.function_map import MappedFunction

from helpers.replay_recordings import ACTIVITY, LAMBDA, record, waiting_token

CALLBACK = "arn:aws:states:::lambda:invoke.waitForTaskToken"


def _flaky() -> Callable[[Any, Any], Any]:
    calls = []

    def work(event: Any, context: Any) -> Any:
        calls.append(event)
        if len(calls) == 1:
            raise ValueError("first call fails")
        return {"worked": event, "calls": len(calls)}
    return work


def _answer_callback(emulator: Emulator, execution_arn: str) -> None:
    token = waiting_token(emulator, execution_arn)
    emulator.service.send_task_heartbeat(taskToken=token)
    emulator.service.send_task_success(taskToken=token, output=json.dumps({"approved": True}))


def _answer_activity(emulator: Emulator, execution_arn: str) -> None:
    task = emulator.service.get_activity_task(activityArn=ACTIVITY, workerName="worker")
    emulator.service.send_task_heartbeat(taskToken=task["taskToken"])
    emulator.service.send_task_success(taskToken=task["taskToken"], output=json.dumps({"reviewed": json.loads(task["input"])}))


FLOW = {"StartAt": "Prepare", "States": {
    "Prepare": {"Type": "Pass", "Parameters": {"n.$": "$.n", "kind": "flow"}, "Next": "Pause"},
    "Pause": {"Type": "Wait", "Seconds": 3600, "Next": "Decide"},
    "Decide": {"Type": "Choice", "Choices": [{"Variable": "$.n", "NumericGreaterThan": 1, "Next": "Big"}],
               "Default": "Small"},
    "Big": {"Type": "Succeed"}, "Small": {"Type": "Fail", "Error": "TooSmall", "Cause": "n <= 1"}}}
LAMBDA_RETRY_CATCH = {"StartAt": "Call", "States": {
    "Call": {"Type": "Task", "Resource": LAMBDA, "ResultPath": "$.call",
             "Retry": [{"ErrorEquals": ["States.ALL"], "MaxAttempts": 2, "IntervalSeconds": 5}], "Next": "Done"},
    "Done": {"Type": "Pass", "End": True}}}
CAUGHT = {"StartAt": "Call", "States": {
    "Call": {"Type": "Task", "Resource": LAMBDA, "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "Recover",
                                                            "ResultPath": "$.error"}], "Next": "Done"},
    "Recover": {"Type": "Pass", "Result": "recovered", "ResultPath": "$.status", "End": True},
    "Done": {"Type": "Pass", "End": True}}}
INTEGRATION = {"StartAt": "Invoke", "States": {
    "Invoke": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
               "Parameters": {"FunctionName": "work", "Payload.$": "$"}, "OutputPath": "$.Payload", "End": True}}}
CALLBACK_MACHINE = {"StartAt": "Approve", "States": {
    "Approve": {"Type": "Task", "Resource": CALLBACK, "HeartbeatSeconds": 600,
                "Parameters": {"FunctionName": "work", "Payload": {"token.$": "$$.Task.Token", "order.$": "$.order"}},
                "ResultPath": "$.approval", "Next": "Ship"},
    "Ship": {"Type": "Pass", "End": True}}}
ACTIVITY_MACHINE = {"StartAt": "Review", "States": {
    "Review": {"Type": "Task", "Resource": ACTIVITY, "HeartbeatSeconds": 60, "Next": "Done"},
    "Done": {"Type": "Pass", "End": True}}}
CHILD = {"StartAt": "Inner", "States": {"Inner": {"Type": "Task", "Resource": LAMBDA, "End": True}}}
NESTED = {"StartAt": "RunChild", "States": {
    "RunChild": {"Type": "Task", "Resource": "arn:aws:states:::states:startExecution.sync:2",
                 "Parameters": {"StateMachineArn": "arn:aws:states:us-east-1:123456789012:stateMachine:Child",
                                "Input.$": "$"}, "ResultSelector": {"out.$": "$.Output"}, "End": True}}}
FAN_OUT = {"StartAt": "Both", "States": {
    "Both": {"Type": "Parallel", "Next": "Each", "ResultPath": "$.both", "Branches": [
        {"StartAt": "Left", "States": {"Left": {"Type": "Task", "Resource": LAMBDA, "End": True}}},
        {"StartAt": "Right", "States": {"Right": {"Type": "Task", "Resource": LAMBDA,
                                                  "Parameters": {"side": "right"}, "End": True}}}]},
    "Each": {"Type": "Map", "ItemsPath": "$.items", "ItemProcessor": {"StartAt": "Item", "States": {
        "Item": {"Type": "Task", "Resource": LAMBDA, "End": True}}}, "End": True}}}


JSONATA = {"QueryLanguage": "JSONata", "StartAt": "Quote", "States": {
    "Quote": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
              "Arguments": {"FunctionName": "work", "Payload": "{% $states.input %}"},
              "Assign": {"quoted": "{% $states.result.Payload.worked.qty %}"},
              "Output": "{% $states.result.Payload %}", "Next": "Total"},
    "Total": {"Type": "Pass", "Output": {"total": "{% $quoted * 10 %}"}, "End": True}}}


def _failing(event: Any, context: Any) -> Any:
    raise KeyError("x")


def _each_item_answers_alike(event: Any, context: Any) -> Any:
    return {"item": event} if not isinstance(event, dict) else {"worked": event}


SCENARIOS = {
    # name: (definition, input, recorder options; make_work: a handler with state of its own, made per recording)
    "pass, wait, choice, succeed": (FLOW, {"n": 5}, {}),
    "fail state": (FLOW, {"n": 1}, {}),
    "lambda retried": (LAMBDA_RETRY_CATCH, {"id": 1}, {"make_work": _flaky}),
    "lambda failure caught": (CAUGHT, {"id": 2}, {"work": _failing}),
    "request-response integration": (INTEGRATION, {"id": 3}, {}),
    "waitForTaskToken with a heartbeat": (CALLBACK_MACHINE, {"order": 7}, {"answer": _answer_callback}),
    "activity with a heartbeat": (ACTIVITY_MACHINE, {"doc": "a"}, {"answer": _answer_activity}),
    "nested .sync:2 execution": (NESTED, {"child": True}, {"child": CHILD}),
    "parallel branches and map iterations": (FAN_OUT, {"items": [1, 2, 3]}, {"work": _each_item_answers_alike}),
    "JSONata arguments, assign and output": (JSONATA, {"qty": 4}, {}),
}


@pytest.fixture(scope="module")
def histories() -> dict[str, dict[str, Any]]:
    recorded = {}
    for name, (definition, input, options) in SCENARIOS.items():
        options = dict(options)
        if "make_work" in options:
            options["work"] = options.pop("make_work")()
        recorded[name] = record(definition, input, **options)
    return recorded


@pytest.fixture(scope="module")
def replayer() -> Any:
    with Emulator(Settings()) as emulator:
        yield emulator


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_recording_replayed_against_its_definition_matches(name: str, histories: dict, replayer: Emulator) -> None:
    definition = SCENARIOS[name][0]
    result = replayer.replay(histories[name], definition)
    result.assert_matched()
    assert result.status == result.recorded_status
    assert result.unanswered == []


def _edited(definition: dict[str, Any], edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    changed = copy.deepcopy(definition)
    edit(changed)
    return changed


def _set(path: list[str], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(definition: dict[str, Any]) -> None:
        target = definition
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


def _add_task_before(state: str, after: str) -> Callable[[dict[str, Any]], None]:
    def edit(definition: dict[str, Any]) -> None:
        definition["States"][after]["Next"] = "Audit"
        definition["States"]["Audit"] = {"Type": "Task", "Resource": LAMBDA, "ResultPath": None, "Next": state}
    return edit


def _remove_state(removed: str, before: str) -> Callable[[dict[str, Any]], None]:
    def edit(definition: dict[str, Any]) -> None:
        definition["States"][before]["Next"] = definition["States"].pop(removed)["Next"]
    return edit


EDITS = [
    # (scenario, edit, divergence kind, state reported, recorded event type where it happens)
    ("pass, wait, choice, succeed", _set(["States", "Decide", "Choices", 0, "NumericGreaterThan"], 10),
     "path", "Decide", "SucceedStateEntered"),
    ("pass, wait, choice, succeed", _remove_state("Pause", "Prepare"), "path", "Prepare", "WaitStateEntered"),
    ("pass, wait, choice, succeed", _set(["States", "Prepare", "Parameters", "kind"], "edited"),
     "output", "Prepare", "PassStateExited"),
    ("lambda retried", _set(["States", "Call", "ResultPath"], "$.result"), "output", "Call", "TaskStateExited"),
    ("lambda retried", _set(["States", "Call", "Retry"], []), "path", "Call", "LambdaFunctionScheduled"),
    ("lambda failure caught", _set(["States", "Call", "Catch", 0, "ResultPath"], "$.oops"), "output", "Call",
     "TaskStateExited"),
    ("request-response integration", _set(["States", "Invoke", "Parameters", "Payload.$"], "$.id"), "parameters",
     "Invoke", "TaskScheduled"),
    ("waitForTaskToken with a heartbeat", _set(["States", "Approve", "ResultPath"], "$.ok"), "output", "Approve",
     "TaskStateExited"),
    ("activity with a heartbeat", _add_task_before("Done", "Review"), "path", "Review", "PassStateEntered"),
    ("nested .sync:2 execution", _set(["States", "RunChild", "ResultSelector"], {"whole.$": "$"}), "output",
     "RunChild", "TaskStateExited"),
    ("parallel branches and map iterations", _set(["States", "Each", "ItemProcessor", "States", "Item",
                                                   "ResultSelector"], {"wrapped.$": "$"}), "output", "Item",
     "TaskStateExited"),
    ("parallel branches and map iterations",
     _set(["States", "Both", "Branches", 1, "States", "Right", "Parameters"], {"side": "left"}), "parameters", "Right",
     "LambdaFunctionScheduled"),
    ("JSONata arguments, assign and output", _set(["States", "Total", "Output", "total"], "{% $quoted * 100 %}"),
     "output", "Total", "PassStateExited"),
]


@pytest.mark.parametrize(("name", "edit", "kind", "state", "event_type"), EDITS,
                         ids=[f"{edit[0]}: {edit[2]} of {edit[3]}" for edit in EDITS])
def test_an_edited_definition_diverges_where_it_first_differs(name: str, edit: Callable, kind: str, state: str,
                                                              event_type: str, histories: dict,
                                                              replayer: Emulator) -> None:
    history = histories[name]
    result = replayer.replay(history, _edited(SCENARIOS[name][0], edit))
    assert not result.matched
    divergence = result.divergence
    assert (divergence.kind, divergence.state) == (kind, state), divergence.message
    assert history["events"][divergence.event_id - 1]["type"] == event_type
    with pytest.raises(AssertionError, match=f"diverged from the recording at event {divergence.event_id}"):
        result.assert_matched()


def test_a_new_task_stops_with_no_recorded_answer_unless_mocked(histories: dict, replayer: Emulator,
                                                               tmp_path: Any) -> None:
    definition = _edited(FLOW, _add_task_before("Decide", "Pause"))
    history = histories["pass, wait, choice, succeed"]
    result = replayer.replay(history, definition)
    assert result.unanswered and "no recorded answer for state 'Audit'" in result.unanswered[0]
    assert result.status == "FAILED"
    assert result.divergence.kind == "path" and result.divergence.state == "Pause"
    assert "no recorded answer for state 'Audit'" in result.explain()

    mocks = tmp_path / "mocks.json"
    mocks.write_text(json.dumps({"StateMachines": {"Replay": {"TestCases": {"audit": {"Audit": "Audited"}}}},
                                 "MockedResponses": {"Audited": {"0": {"Return": {"audited": True}}}}}))
    mocked = replayer.replay(history, definition, test_case="audit", mock_config=mocks)
    assert mocked.unanswered == [] and mocked.status == "SUCCEEDED"
    assert mocked.divergence.kind == "path"  # a new state is another path, answered or not

    called = replayer.replay(history, definition, functions={"work": lambda event, context: {"audited": True}})
    assert called.unanswered == [] and called.status == "SUCCEEDED"


def test_a_callable_answering_a_new_task_is_still_ended_by_its_function_timeout(histories: dict,
                                                                              replayer: Emulator) -> None:
    definition = _edited(FLOW, _add_task_before("Decide", "Pause"))
    released = threading.Event()
    stuck = MappedFunction(lambda event, context: released.wait(), timeout_seconds=0.2)
    try:
        result = replayer.replay(histories["pass, wait, choice, succeed"], definition, functions={"work": stuck})
    finally:
        released.set()

    failed = [event for event in result.history if event["type"] == "LambdaFunctionFailed"]
    assert result.status == "FAILED" and result.unanswered == []
    assert [event["lambdaFunctionFailedEventDetails"]["error"] for event in failed] == ["Sandbox.Timedout"]


def test_answers_are_matched_to_map_iterations_by_index_not_call_order(replayer: Emulator) -> None:
    history = record(FAN_OUT, {"items": [10, 20, 30]}, work=_each_item_answers_alike)
    reordered = _edited(FAN_OUT, _set(["States", "Each", "MaxConcurrency"], 1))
    result = replayer.replay(history, reordered)
    result.assert_matched()
    exits = [event for event in result.history if event["type"] == "MapStateExited"]
    assert json.loads(exits[0]["stateExitedEventDetails"]["output"]) == [{"item": 10}, {"item": 20}, {"item": 30}]


def test_the_replay_clock_starts_at_the_recordings_start(histories: dict, replayer: Emulator) -> None:
    history = histories["pass, wait, choice, succeed"]
    result = replayer.replay(history, FLOW)
    assert result.history[0]["timestamp"] == history["events"][0]["timestamp"]
    waited = [event for event in result.history if event["type"] == "WaitStateExited"][0]
    recorded = [event for event in history["events"] if event["type"] == "WaitStateExited"][0]
    assert waited["timestamp"] == recorded["timestamp"]


def test_until_divergence_stops_the_replay_there(histories: dict, replayer: Emulator) -> None:
    definition = _edited(FLOW, _add_task_before("Decide", "Pause"))
    result = replayer.replay(histories["pass, wait, choice, succeed"], definition, until_divergence=True)
    assert result.status == "ABORTED"
    assert all((step.recorded or step.replayed).event_id <= result.divergence.event_id + 1 for step in result.comparisons
               if step.recorded)


@pytest.mark.parametrize(("mocked", "status"), [(False, "FAILED"), (True, "SUCCEEDED")])
def test_check_redrive_redrives_a_failed_recording(mocked: bool, status: str, replayer: Emulator) -> None:
    definition = {"StartAt": "Call", "States": {"Call": {"Type": "Task", "Resource": LAMBDA, "End": True}}}
    history = record(definition, {"id": 9}, work=_failing)
    functions = {"work": lambda event, context: {"fixed": True}} if mocked else None
    result = replayer.replay(history, definition, check_redrive=True, functions=functions)
    result.assert_matched()
    assert result.redrive is not None and result.redrive.accepted
    assert result.redrive.status == status


def test_check_redrive_of_a_succeeded_recording_is_refused(histories: dict, replayer: Emulator) -> None:
    result = replayer.replay(histories["pass, wait, choice, succeed"], FLOW, check_redrive=True)
    assert result.redrive is not None and not result.redrive.accepted
    assert result.redrive.error == "ExecutionNotRedrivable"


DISTRIBUTED = {"StartAt": "Fan", "States": {"Fan": {
    "Type": "Map", "ItemsPath": "$.items", "End": True, "ItemProcessor": {
        "ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
        "StartAt": "Child", "States": {"Child": {"Type": "Task", "Resource": LAMBDA, "End": True}}}}}}


def test_a_distributed_maps_child_tasks_need_a_mock(replayer: Emulator) -> None:
    history = record(DISTRIBUTED, {"items": [1, 2]})
    unanswered = replayer.replay(history, DISTRIBUTED)
    assert not unanswered.matched
    assert "it runs in a Distributed Map child execution, which the parent's history does not hold" \
        in unanswered.unanswered[0]
    replayer.replay(history, DISTRIBUTED, functions={"work": lambda event, context: {"worked": event}}).assert_matched()


@pytest.mark.parametrize(("name", "edit", "status"), [
    ("request-response integration", _set(["States", "Invoke", "Parameters", "Payload.$"], "$.id"), "ABORTED"),
    ("waitForTaskToken with a heartbeat", lambda definition: None, "SUCCEEDED"),  # its own token is no divergence
], ids=["other parameters stop it", "the same callback runs on"])
def test_until_divergence_stops_at_a_task_called_otherwise(name: str, edit: Callable, status: str, histories: dict,
                                                           replayer: Emulator) -> None:
    result = replayer.replay(histories[name], _edited(SCENARIOS[name][0], edit), until_divergence=True)
    assert result.status == status
    assert result.matched == (status == "SUCCEEDED")


def test_a_redriven_recording_answers_the_replays_redrive(replayer: Emulator) -> None:
    definition = {"StartAt": "Prepare", "States": {"Prepare": {"Type": "Pass", "Next": "Call"},
                                                   "Call": {"Type": "Task", "Resource": LAMBDA, "End": True}}}
    down = {"now": True}

    def work(event: Any, context: Any) -> Any:
        if down["now"]:
            raise RuntimeError("down")
        return {"worked": event}

    def redrive_once_fixed(emulator: Emulator, execution_arn: str) -> None:
        down["now"] = False
        emulator.service.redrive_execution(executionArn=execution_arn)

    history = record(definition, {"id": 5}, work=work, answer=redrive_once_fixed)
    assert "ExecutionRedriven" in [event["type"] for event in history["events"]]
    result = replayer.replay(history, definition, check_redrive=True)
    result.assert_matched()
    assert (result.recorded_status, result.status) == ("FAILED", "FAILED")  # the steps end at the first end
    redrive = result.redrive
    assert (redrive.accepted, redrive.status, redrive.recorded_status) == (True, "SUCCEEDED", "SUCCEEDED")
    assert redrive.output == {"worked": {"id": 5}}
