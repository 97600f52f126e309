"""Logging configurations and execution logs, over HTTP with boto3 (moto's CloudWatch Logs behind the
emulator's endpoint) and in-process on the same emulator.

Rules: emulator/sfn_emulator/service/logging_configuration.py (what CreateStateMachine/UpdateStateMachine accept)
and emulator/sfn_emulator/service/execution_logs.py (which events each level logs, and their shape)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from helpers.clients import TEST_REGION, make_client
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.config import Settings
from sfn_emulator.service.errors import InvalidLoggingConfiguration
from sfn_emulator.service.execution_logs import is_logged

FIXTURES = FIXTURES_ROOT / "express"
CONFIGURATIONS = json.loads((FIXTURES / "logging_configurations.json").read_text())["cases"]
LEVELS = json.loads((FIXTURES / "log_levels.json").read_text())
ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/sfn-role"
PASS = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    """An emulator of this module's own, its clock at real time: CloudWatch Logs takes events of the
    last 14 days only, and the session's server may have jumped far ahead."""
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.wire import HttpServer

    with Emulator(Settings()) as emulator:
        http = HttpServer(emulator.server_app, "127.0.0.1", 0).start()
        try:
            yield emulator, http.endpoint_url
        finally:
            http.stop()


@pytest.fixture(scope="module")
def sfn(server: Any) -> Any:
    return make_client(server[1])


@pytest.fixture(scope="module")
def logs(server: Any) -> Any:
    return boto3.client("logs", endpoint_url=server[1], region_name=TEST_REGION,
                        aws_access_key_id="testing", aws_secret_access_key="testing")


@pytest.fixture
def group(logs: Any) -> str:
    """A new log group's ARN, without its `:*` qualifier."""
    name = f"/aws/vendedlogs/states/{uuid.uuid4().hex[:12]}"
    logs.create_log_group(logGroupName=name)
    return f"arn:aws:logs:{TEST_REGION}:{ACCOUNT}:log-group:{name}"


def _filled(value: Any, group: str) -> Any:
    text = json.dumps(value).replace("<GROUP>", group).replace("<MISSING>", group + "-missing")
    return json.loads(text)


def _new_name() -> str:
    return f"logged-{uuid.uuid4().hex[:12]}"


@pytest.mark.parametrize("machine_type", ["STANDARD", "EXPRESS"])
@pytest.mark.parametrize("case", CONFIGURATIONS, ids=[case["name"] for case in CONFIGURATIONS])
def test_create_state_machine_logging_configuration(sfn: Any, group: str, case: dict, machine_type: str) -> None:
    given = _filled(case["given"], group)
    options = {} if given is None else {"loggingConfiguration": given}
    if "error" in case:
        with pytest.raises(sfn.exceptions.InvalidLoggingConfiguration) as refused:
            sfn.create_state_machine(name=_new_name(), definition=PASS, roleArn=ROLE, type=machine_type, **options)
        assert refused.value.response["Error"]["Message"] == case["error"]
        return
    arn = sfn.create_state_machine(name=_new_name(), definition=PASS, roleArn=ROLE, type=machine_type,
                                   **options)["stateMachineArn"]
    assert sfn.describe_state_machine(stateMachineArn=arn)["loggingConfiguration"] == _filled(case["expect"], group)


@pytest.mark.parametrize("case", [case for case in CONFIGURATIONS if case["given"] is not None],
                         ids=[case["name"] for case in CONFIGURATIONS if case["given"] is not None])
def test_update_state_machine_logging_configuration(sfn: Any, group: str, case: dict) -> None:
    arn = sfn.create_state_machine(name=_new_name(), definition=PASS, roleArn=ROLE)["stateMachineArn"]
    given = _filled(case["given"], group)
    if "error" in case:
        with pytest.raises(sfn.exceptions.InvalidLoggingConfiguration) as refused:
            sfn.update_state_machine(stateMachineArn=arn, loggingConfiguration=given)
        assert refused.value.response["Error"]["Message"] == case["error"]
        assert sfn.describe_state_machine(stateMachineArn=arn)["loggingConfiguration"]["level"] == "OFF"
        return
    sfn.update_state_machine(stateMachineArn=arn, loggingConfiguration=given)
    assert sfn.describe_state_machine(stateMachineArn=arn)["loggingConfiguration"] == _filled(case["expect"], group)


def test_the_same_rules_in_process(server: Any, group: str) -> None:
    service = server[0].service
    with pytest.raises(InvalidLoggingConfiguration, match="Log Destination not found"):
        service.create_state_machine(name=_new_name(), definition=PASS, roleArn=ROLE, loggingConfiguration={
            "level": "ALL", "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": group + "-missing:*"}}]})
    service.create_state_machine(name=_new_name(), definition=PASS, roleArn=ROLE, loggingConfiguration={
        "level": "ALL", "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": group + ":*"}}]})


# -- execution logs ----------------------------------------------------------------------------

def _machine(sfn: Any, group: str, level: str, include_data: bool, machine_type: str) -> str:
    configuration = {"level": level, "includeExecutionData": include_data,
                     "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": group + ":*"}}]}
    return sfn.create_state_machine(name=_new_name(), definition=json.dumps(LEVELS["definition"]), roleArn=ROLE,
                                    type=machine_type, loggingConfiguration=configuration)["stateMachineArn"]


def _run(sfn: Any, server: Any, machine: str, machine_type: str) -> str:
    """Run the machine to its end (the engine idle, so its logs are written); its execution ARN."""
    if machine_type == "EXPRESS":
        answer = sfn.start_sync_execution(stateMachineArn=machine, input='{"order": 7}')
        assert answer["status"] == "FAILED"
        arn = answer["executionArn"]
    else:
        arn = sfn.start_execution(stateMachineArn=machine, input='{"order": 7}')["executionArn"]
    assert server[0].clock.run_until_idle(10)
    return str(arn)


def _log_events(logs: Any, group: str) -> tuple[list[str], list[dict]]:
    name = group.split(":log-group:", 1)[1]
    streams = [stream["logStreamName"] for stream in logs.describe_log_streams(logGroupName=name)["logStreams"]]
    messages = [json.loads(event["message"]) for stream in streams
                for event in logs.get_log_events(logGroupName=name, logStreamName=stream)["events"]]
    return streams, messages


@pytest.mark.parametrize("machine_type", ["STANDARD", "EXPRESS"])
@pytest.mark.parametrize("level", sorted(LEVELS["levels"]))
def test_each_level_logs_its_events(sfn: Any, logs: Any, server: Any, group: str, level: str,
                                    machine_type: str) -> None:
    machine = _machine(sfn, group, level, False, machine_type)
    _run(sfn, server, machine, machine_type)
    _, messages = _log_events(logs, group)
    assert [message["type"] for message in messages] == LEVELS["levels"][level]


def test_all_logs_the_whole_history_in_aws_shape(sfn: Any, logs: Any, server: Any, group: str) -> None:
    machine = _machine(sfn, group, "ALL", True, "STANDARD")
    arn = _run(sfn, server, machine, "STANDARD")
    history = sfn.get_execution_history(executionArn=arn)["events"]
    streams, messages = _log_events(logs, group)
    machine_name = machine.rsplit(":", 1)[1]
    assert len(streams) == 1 and streams[0].startswith(f"states/{machine_name}/")
    assert len(messages) == len(history)
    for event, message in zip(history, messages):
        details_key = next((key for key in event if key.endswith("EventDetails")), None)
        expected = {"id": str(event["id"]), "type": event["type"],
                    **({"details": event[details_key]} if details_key else {}),
                    "previous_event_id": str(event["previousEventId"]),
                    "event_timestamp": str(int(event["timestamp"].timestamp() * 1000)),
                    "execution_arn": arn, "redrive_count": "0"}
        assert message == expected
    assert json.loads(messages[0]["details"]["input"]) == {"order": 7}


@pytest.mark.parametrize("machine_type", ["STANDARD", "EXPRESS"])
def test_without_execution_data_no_input_or_output_is_logged(sfn: Any, logs: Any, server: Any, group: str,
                                                             machine_type: str) -> None:
    machine = _machine(sfn, group, "ALL", False, machine_type)
    _run(sfn, server, machine, machine_type)
    _, messages = _log_events(logs, group)
    assert messages[0]["type"] == "ExecutionStarted"
    assert all("input" not in message.get("details", {}) and "output" not in message.get("details", {})
               for message in messages)
    assert "inputDetails" in messages[0]["details"]


@pytest.mark.parametrize(("event_type", "levels"), [
    ("ExecutionStarted", {"ALL"}),
    ("PassStateEntered", {"ALL"}),
    ("TaskSucceeded", {"ALL"}),
    ("FailStateEntered", {"ALL", "ERROR"}),
    ("TaskFailed", {"ALL", "ERROR"}),
    ("TaskTimedOut", {"ALL", "ERROR"}),
    ("TaskStateAborted", {"ALL", "ERROR"}),
    ("LambdaFunctionScheduleFailed", {"ALL", "ERROR"}),
    ("MapIterationAborted", {"ALL", "ERROR"}),
    ("MapRunFailed", {"ALL", "ERROR"}),
    ("WaitStateAborted", {"ALL", "ERROR"}),
    ("ActivityTimedOut", {"ALL", "ERROR"}),
    ("ExecutionFailed", {"ALL", "ERROR", "FATAL"}),
    ("ExecutionTimedOut", {"ALL", "ERROR", "FATAL"}),
    ("ExecutionAborted", {"ALL", "ERROR", "FATAL"}),
    ("ExecutionSucceeded", {"ALL"}),
])
def test_log_levels_table(event_type: str, levels: set[str]) -> None:
    assert {level for level in ("ALL", "ERROR", "FATAL", "OFF") if is_logged(level, event_type)} == levels


def test_a_redriven_execution_logs_its_new_run_once(sfn: Any, logs: Any, server: Any, group: str) -> None:
    machine = _machine(sfn, group, "ALL", False, "STANDARD")
    arn = _run(sfn, server, machine, "STANDARD")
    sfn.redrive_execution(executionArn=arn)
    assert server[0].clock.run_until_idle(10)
    history = sfn.get_execution_history(executionArn=arn)["events"]
    _, messages = _log_events(logs, group)
    assert [message["id"] for message in messages] == [str(event["id"]) for event in history]
    redriven = next(event["id"] for event in history if event["type"] == "ExecutionRedriven")
    assert {message["redrive_count"] for message in messages if int(message["id"]) >= redriven} == {"1"}
