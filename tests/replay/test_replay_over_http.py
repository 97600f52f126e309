"""Record over HTTP with boto3 on a real server, as a user records in production: the history as
boto3's paginator returns it (datetimes, several pages) replays through the pytest fixture, and
`export-test` takes the execution from the endpoint."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from sfn_emulator.cli.main import main

ROLE = "arn:aws:iam::123456789012:role/recorder"


def _recorded(sfn: Any, emulator_server: Any, definition: dict[str, Any], input: Any) -> tuple[str, list[dict]]:
    machine = sfn.create_state_machine(name=f"orders-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition),
                                       roleArn=ROLE)["stateMachineArn"]
    execution = sfn.start_execution(stateMachineArn=machine, input=json.dumps(input))["executionArn"]
    emulator_server.emulator.clock.run_until_idle()
    assert sfn.describe_execution(executionArn=execution)["status"] == "SUCCEEDED"
    pages = list(sfn.get_paginator("get_execution_history").paginate(executionArn=execution,
                                                                     PaginationConfig={"PageSize": 3}))
    assert len(pages) > 1
    return execution, pages


def _definition(function: str) -> dict[str, Any]:
    return {"StartAt": "Price", "States": {
        "Price": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                  "Parameters": {"FunctionName": function, "Payload.$": "$"}, "ResultSelector": {"total.$": "$.Payload"},
                  "ResultPath": "$.price", "Next": "Cheap?"},
        "Cheap?": {"Type": "Choice", "Choices": [{"Variable": "$.price.total", "NumericLessThan": 100,
                                                  "Next": "Ship"}], "Default": "Review"},
        "Ship": {"Type": "Pass", "End": True},
        "Review": {"Type": "Pass", "Result": "review", "ResultPath": "$.status", "End": True}}}


@pytest.fixture
def recorded(sfn: Any, emulator_server: Any) -> tuple[str, list[dict], dict[str, Any]]:
    function = f"price-{uuid.uuid4().hex[:8]}"
    emulator_server.emulator.functions.register(function, lambda event, context: event["qty"] * 20)
    try:
        execution, pages = _recorded(sfn, emulator_server, _definition(function), {"qty": 3})
    finally:
        emulator_server.emulator.functions.unregister(function)
    return execution, pages, _definition(function)


def test_boto3_pages_replay_through_the_fixture(recorded: tuple, sfn_emulator: Any) -> None:
    _, pages, definition = recorded
    sfn_emulator.replay(pages, definition).assert_matched()


def test_the_fixture_assertion_shows_the_divergence_as_a_json_diff(recorded: tuple, sfn_emulator: Any) -> None:
    _, pages, definition = recorded
    definition["States"]["Price"]["ResultSelector"] = {"total.$": "$.Payload", "currency": "EUR"}
    result = sfn_emulator.replay(pages, definition)
    with pytest.raises(AssertionError) as failure:
        result.assert_matched()
    message = str(failure.value)
    assert "the output of state 'Price' differs" in message
    assert '$.price.currency: not expected (got "EUR")' in message


def test_export_test_from_an_endpoint_runs_as_a_test(recorded: tuple, emulator_server: Any, tmp_path: Path,
                                                     sfn_emulator: Any) -> None:
    execution, _, _ = recorded
    assert main(["export-test", execution, "--endpoint", emulator_server.endpoint_url, "--output", str(tmp_path)]) == 0
    case = json.loads(next(tmp_path.glob("*.test.json")).read_text())
    assert case["input"] == {"qty": 3} and case["expect"]["status"] == "SUCCEEDED"
    sfn_emulator.run_test_case(tmp_path)


def test_export_test_of_an_unknown_execution_exits_2(emulator_server: Any, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    missing = "arn:aws:states:us-east-1:123456789012:execution:nobody:nothing"
    assert main(["export-test", missing, "--endpoint", emulator_server.endpoint_url, "--output", str(tmp_path)]) == 2
    assert f"Execution Does Not Exist: '{missing}'" in capsys.readouterr().err


class _Api:
    """A local HTTP API answering every request with its path; counts the requests it gets."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        owner = self
        self.requests = 0

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                owner.requests += 1
                data = json.dumps({"path": self.path}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        import threading

        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_an_http_task_replays_from_its_recorded_response(sfn: Any, emulator_server: Any, sfn_emulator: Any) -> None:
    import boto3

    api = _Api()
    try:
        events = boto3.client("events", endpoint_url=emulator_server.endpoint_url, region_name="us-east-1",
                              aws_access_key_id="testing", aws_secret_access_key="testing")
        connection = events.create_connection(
            Name=f"c-{uuid.uuid4().hex[:8]}", AuthorizationType="API_KEY",
            AuthParameters={"ApiKeyAuthParameters": {"ApiKeyName": "x-api-key", "ApiKeyValue": "k"}})["ConnectionArn"]
        definition = {"StartAt": "Fetch", "States": {"Fetch": {
            "Type": "Task", "Resource": "arn:aws:states:::http:invoke", "OutputPath": "$.ResponseBody",
            "Parameters": {"ApiEndpoint": f"{api.url}/orders/7", "Method": "GET",
                           "Authentication": {"ConnectionArn": connection}}, "End": True}}}
        _, pages = _recorded(sfn, emulator_server, definition, {})
    finally:
        api.close()
    assert api.requests == 1
    result = sfn_emulator.replay(pages, definition)  # the API is gone: the answer is the recorded one
    result.assert_matched()
    assert json.loads(result.history[-1]["executionSucceededEventDetails"]["output"]) == {"path": "/orders/7"}
