"""Lambda's Invoke through `lambda:invoke` and `aws-sdk:lambda:invoke` on Python callables, over HTTP.

Table-driven from fixtures/resources/lambda_invoke_integrations.json: the same function through
both integrations and every InvocationType, succeeding and failing (see the fixture's `about`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flow import Flow, Server, outcome, task
from helpers.paths import FIXTURES_ROOT

FIXTURE = json.loads((FIXTURES_ROOT / "resources" / "lambda_invoke_integrations.json").read_text())
HTTP_METADATA = ("SdkHttpMetadata", "SdkResponseMetadata")
RAN_WITHIN_SECONDS = 30.0  # an Event invocation runs on its own; its run is awaited at most this long


class Calls:
    """The handlers' record of their calls, which an Event invocation makes after the task ends."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.called = threading.Event()

    def record(self, event: Any, context: Any) -> dict[str, Any]:
        self.events.append(event)
        self.called.set()
        return {"got": event}

    def record_and_fail(self, event: Any, context: Any) -> Any:
        self.record(event, context)
        raise ValueError(f"refused {event}")


@pytest.fixture(scope="module")
def server(start_server: Callable[..., Server]) -> Server:
    return start_server()


@pytest.fixture
def flow(server: Server) -> Iterator[tuple[Flow, Calls]]:
    calls = Calls()
    server.emulator.functions.update({"record": calls.record, "record-and-fail": calls.record_and_fail})
    yield Flow(server), calls


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda case: case["name"])
def test_lambda_invoke_integrations(flow: tuple[Flow, Calls], case: dict[str, Any]) -> None:
    runner, calls = flow
    described = outcome(runner.run(task(case["resource"], Parameters=case["parameters"]), {}))
    expect = dict(case["expect"])
    assert calls.called.wait(RAN_WITHIN_SECONDS) if expect.pop("ran") else calls.events == []
    if "cause_message" in expect:
        assert json.loads(described.pop("cause"))["errorMessage"] == expect.pop("cause_message")
    if "result" in expect:
        result = described.pop("output")
        http_status = expect.pop("http_status", None)
        if http_status is not None:
            assert result.pop("SdkHttpMetadata")["HttpStatusCode"] == http_status
            assert set(result.pop("SdkResponseMetadata")) == {"RequestId"}
        assert not set(result) & set(HTTP_METADATA), "the SDK integration answers no HTTP metadata"
        if "payload_report" in expect:
            report = json.loads(result.pop("Payload"))
            assert {key: report[key] for key in ("errorMessage", "errorType")} == expect.pop("payload_report")
        assert result == expect.pop("result")
    assert described == expect


def test_the_optimized_event_invocation_answers_no_version_header(flow: tuple[Flow, Calls]) -> None:
    runner, calls = flow
    parameters = {"FunctionName": "record", "InvocationType": "Event"}
    result = outcome(runner.run(task("arn:aws:states:::lambda:invoke", Parameters=parameters), {}))["output"]
    headers = result["SdkHttpMetadata"]["HttpHeaders"]
    assert "X-Amz-Executed-Version" not in headers and headers["Content-Length"] == "0"
    assert calls.called.wait(RAN_WITHIN_SECONDS)


def test_the_sdk_integration_answers_the_log_tail_when_asked(flow: tuple[Flow, Calls]) -> None:
    runner, _ = flow
    parameters = {"FunctionName": "record", "Payload": {}, "LogType": "Tail"}
    result = outcome(runner.run(task("arn:aws:states:::aws-sdk:lambda:invoke", Parameters=parameters), {}))["output"]
    assert set(result) == {"ExecutedVersion", "LogResult", "Payload", "StatusCode"}


@pytest.mark.parametrize("resource", ["arn:aws:states:::lambda:invoke", "arn:aws:states:::lambda:invoke.waitForTaskToken",
                                      "arn:aws:states:::aws-sdk:lambda:invoke"])
def test_a_parameter_invoke_has_no_member_for_is_refused_before_the_call(flow: tuple[Flow, Calls],
                                                                         resource: str) -> None:
    """A task token goes inside the Payload: beside it, `TaskToken` is no member of Invoke's request."""
    runner, calls = flow
    parameters = {"FunctionName": "record", "Payload": {}, "TaskToken": "a-token"}
    described = outcome(runner.run(task(resource, Parameters=parameters), {}))
    assert described["status"] == "FAILED" and described["error"] == "States.Runtime"
    assert described["cause"].endswith('The field "TaskToken" is not supported by Step Functions'), described["cause"]
    assert calls.events == []
