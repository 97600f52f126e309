"""Histories in the shapes AWS gives them (boto3's datetimes, the AWS CLI's ISO text or epoch seconds,
pages one after another or in a list), the bad ones (truncated, out of order, another definition's),
and the `replay` and `export-test` commands with their exit codes."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from sfn_emulator import Emulator, Settings
from sfn_emulator.cli.main import main
from sfn_emulator.replay import history_events

from helpers.replay_recordings import LAMBDA, record

ROLE = "arn:aws:iam::111122223333:role/service-role/StepFunctions-HelloWorld-role"
FUNCTION = "arn:aws:lambda:us-west-2:111122223333:function:HelloWorld"
HELLO = {"Comment": "Hello from Lambda", "StartAt": "HelloWorld",
         "States": {"HelloWorld": {"Type": "Task", "Resource": FUNCTION, "End": True}}}


def _aws_cli_history(timestamps: list[Any]) -> dict[str, Any]:
    """A Lambda Task's history as AWS records it (the developer guide's HelloWorld execution's event
    types, details and previousEventId links), with timestamps as given."""
    events = [
        ("ExecutionStarted", 0, "executionStartedEventDetails",
         {"input": "{}", "inputDetails": {"truncated": False}, "roleArn": ROLE}),
        ("TaskStateEntered", 1, "stateEnteredEventDetails",
         {"name": "HelloWorld", "input": "{}", "inputDetails": {"truncated": False}}),
        ("LambdaFunctionScheduled", 2, "lambdaFunctionScheduledEventDetails",
         {"resource": FUNCTION, "input": "{}", "inputDetails": {"truncated": False}}),
        ("LambdaFunctionStarted", 3, None, None),
        ("LambdaFunctionSucceeded", 4, "lambdaFunctionSucceededEventDetails",
         {"output": "\"Hello from Lambda!\"", "outputDetails": {"truncated": False}}),
        ("TaskStateExited", 5, "stateExitedEventDetails",
         {"name": "HelloWorld", "output": "\"Hello from Lambda!\"", "outputDetails": {"truncated": False}}),
        ("ExecutionSucceeded", 6, "executionSucceededEventDetails",
         {"output": "\"Hello from Lambda!\"", "outputDetails": {"truncated": False}}),
    ]
    return {"events": [{"timestamp": stamp, "type": kind, "id": index + 1, "previousEventId": previous,
                        **({key: details} if key else {})}
                       for index, ((kind, previous, key, details), stamp) in enumerate(zip(events, timestamps))]}


START = datetime(2019, 2, 25, 19, 40, 12, 123000, tzinfo=timezone.utc)
SHAPES = {
    "boto3 datetimes": [START] * 7,
    "AWS CLI v2 ISO text": ["2019-02-25T19:40:12.123000+00:00"] * 7,
    "AWS CLI v1 epoch seconds": [START.timestamp()] * 7,
    "wire RFC 3339 Z": ["2019-02-25T19:40:12.123Z"] * 7,
}


@pytest.mark.parametrize("shape", SHAPES)
def test_an_aws_history_replays_in_every_shape(shape: str) -> None:
    with Emulator(Settings()) as emulator:
        result = emulator.replay(_aws_cli_history(SHAPES[shape]), HELLO)
    result.assert_matched()
    assert result.history[0]["timestamp"] == START
    assert result.execution_arn.startswith("arn:aws:states:us-west-2:111122223333:execution:")


def test_pages_concatenated_as_the_aws_cli_prints_them(tmp_path: Path) -> None:
    history = _aws_cli_history(SHAPES["AWS CLI v2 ISO text"])
    pages = [{"events": history["events"][:3], "nextToken": "x"}, {"events": history["events"][3:]}]
    concatenated = tmp_path / "pages.json"
    concatenated.write_text("\n".join(json.dumps(page, indent=4) for page in pages))
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps(pages))
    definition = tmp_path / "hello.asl.json"
    definition.write_text(json.dumps(HELLO))
    for history_file in (concatenated, listed):
        assert main(["replay", str(history_file), "--definition", str(definition)]) == 0


def _events() -> list[dict[str, Any]]:
    return _aws_cli_history([START] * 7)["events"]


BAD = {
    "cut mid-JSON": ("text", lambda: json.dumps({"events": _events()}, default=str)[:500], "not JSON (it may be truncated)"),
    "a missing first page": ("events", lambda: _events()[3:], "the history is truncated: it starts with event 4"),
    "a missing middle page": ("events", lambda: _events()[:2] + _events()[4:], "event 3 is missing"),
    "no end": ("events", lambda: _events()[:5], "ends with event 5 (LambdaFunctionSucceeded) before the execution ended"),
    "out of order": ("events", lambda: [_events()[0], _events()[2], _events()[1], *_events()[3:]],
                     "out of order: event 2 comes after event 3"),
    "no execution data": ("events", lambda: [{**_events()[0], "executionStartedEventDetails": {"roleArn": ROLE}},
                                             *_events()[1:]], "includeExecutionData"),
    "not a history": ("text", lambda: json.dumps({"executions": []}), "must have 'events'"),
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_history_exits_2_with_a_clear_message(case: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    shape, make, message = BAD[case]
    history = tmp_path / "history.json"
    history.write_text(make() if shape == "text" else json.dumps({"events": make()}, default=str))
    definition = tmp_path / "hello.asl.json"
    definition.write_text(json.dumps(HELLO))
    assert main(["replay", str(history), "--definition", str(definition)]) == 2
    assert message in capsys.readouterr().err


def test_another_definitions_history_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    history = tmp_path / "history.json"
    history.write_text(json.dumps(_aws_cli_history([START] * 7), default=str))
    other = tmp_path / "other.asl.json"
    other.write_text(json.dumps({"StartAt": "Elsewhere", "States": {"Elsewhere": {"Type": "Succeed"}}}))
    assert main(["replay", str(history), "--definition", str(other)]) == 2
    assert "another definition" in capsys.readouterr().err


def test_history_events_reads_reverse_order_pages() -> None:
    events = history_events({"events": list(reversed(_events()))})
    assert [event["id"] for event in events] == list(range(1, 8))


def test_replay_command_exit_1_prints_and_reports_the_divergence(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    history = tmp_path / "history.json"
    history.write_text(json.dumps(_aws_cli_history([START] * 7), default=str))
    edited = tmp_path / "edited.asl.json"
    edited.write_text(json.dumps({**HELLO, "States": {"HelloWorld": {**HELLO["States"]["HelloWorld"],
                                                                      "ResultPath": "$.greeting"}}}))
    report = tmp_path / "report.json"
    assert main(["replay", str(history), "--definition", str(edited), "--report", str(report)]) == 1
    assert "diverged from the recording at event 6 (state 'HelloWorld')" in capsys.readouterr().out
    written = json.loads(report.read_text())
    assert written["divergence"]["eventId"] == 6 and written["divergence"]["kind"] == "output"
    assert written["divergence"]["diff"] == ['$: expected "Hello from Lambda!", got {"greeting": "Hello from Lambda!"}']


def test_export_test_writes_a_test_case_that_runs(tmp_path: Path, sfn_emulator: Any) -> None:
    definition = {"StartAt": "Call", "States": {
        "Call": {"Type": "Task", "Resource": LAMBDA, "Retry": [{"ErrorEquals": ["States.ALL"], "MaxAttempts": 1}],
                 "Next": "Done"}, "Done": {"Type": "Pass", "End": True}}}
    calls = []

    def work(event: Any, context: Any) -> Any:
        calls.append(event)
        if len(calls) == 1:
            raise ValueError("flaky")
        return {"done": event}

    history = tmp_path / "history.json"
    history.write_text(json.dumps(record(definition, {"id": 4}, work=work), default=str))
    (tmp_path / "Orders.asl.json").write_text(json.dumps(definition))
    out = tmp_path / "case"
    assert main(["export-test", "--history", str(history), "--definition", str(tmp_path / "Orders.asl.json"),
                 "--test-case", "flaky", "--output", str(out)]) == 0
    mocks = json.loads((out / "MockConfigFile.json").read_text())
    assert mocks["StateMachines"]["Orders"]["TestCases"]["flaky"] == {"Call": "flaky.Call"}
    assert mocks["MockedResponses"]["flaky.Call"]["0"]["Throw"]["Error"] == "ValueError"
    assert mocks["MockedResponses"]["flaky.Call"]["1"] == {"Return": {"done": {"id": 4}}}
    result = sfn_emulator.run_test_case(out / "flaky.test.json")
    assert result.output == {"done": {"id": 4}}


@pytest.mark.parametrize(("definition", "options", "message"), [
    ({"StartAt": "HelloWorld", "States": {"HelloWorld": {"Type": "Task", "End": True}}}, [],
     "the definition cannot run: Invalid State Machine Definition"),
    (HELLO, ["--test-case", "x"], "--test-case needs --mock-config FILE"),
    (HELLO, ["--input", "{not json"], "--input is not JSON"),
], ids=["invalid definition", "test case without mocks", "bad input"])
def test_unusable_options_exit_2(definition: dict, options: list[str], message: str, tmp_path: Path,
                                 capsys: pytest.CaptureFixture) -> None:
    history = tmp_path / "history.json"
    history.write_text(json.dumps(_aws_cli_history([START] * 7), default=str))
    path = tmp_path / "definition.asl.json"
    path.write_text(json.dumps(definition))
    assert main(["replay", str(history), "--definition", str(path), *options]) == 2
    assert message in capsys.readouterr().err


def test_check_redrive_prints_whether_the_redrive_was_accepted(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    events = _events()[:4] + [
        {"timestamp": START, "type": "LambdaFunctionFailed", "id": 5, "previousEventId": 4,
         "lambdaFunctionFailedEventDetails": {"error": "Unavailable", "cause": "down"}},
        {"timestamp": START, "type": "ExecutionFailed", "id": 6, "previousEventId": 5,
         "executionFailedEventDetails": {"error": "Unavailable", "cause": "down"}}]
    history = tmp_path / "failed.json"
    history.write_text(json.dumps({"events": events}, default=str))
    definition = tmp_path / "hello.asl.json"
    definition.write_text(json.dumps(HELLO))
    assert main(["replay", str(history), "--definition", str(definition), "--check-redrive"]) == 0
    redrive = json.loads(capsys.readouterr().out.split("redrive: ", 1)[1])
    assert (redrive["accepted"], redrive["status"], redrive["error"]) == (True, "FAILED", "States.Runtime")
    assert "no recorded answer for state 'HelloWorld' (attempt 0, entry 2)" in redrive["cause"]
