"""Lambda Task states answered by Python callables, driven by boto3 over HTTP and in-process
(`sfn_emulator.inprocess`: a client with no endpoint, answered with no socket).

Table-driven from fixtures/resources/lambda_callables.json: both resource forms (a function
ARN, with its short forms and qualifiers, and `arn:aws:states:::lambda:invoke` with AWS's Invoke
result), exceptions shaped as Lambda's Python runtime reports them, results JSON cannot hold, and
functions nobody registered. Then what a misbehaving callable must not do: hang the server or
harm other executions (exit, hang by the dozen past their function timeout), and
`.waitForTaskToken` answered by the test.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from flow import ACCOUNT, Flow, Server, outcome, task
from helpers.clients import TEST_REGION
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.inprocess import intercept

CASES = json.loads((FIXTURES_ROOT / "resources" / "lambda_callables.json").read_text())["cases"]
INVOKE_RESULT_MEMBERS = {"ExecutedVersion", "Payload", "SdkHttpMetadata", "SdkResponseMetadata", "StatusCode"}


class OutOfStock(Exception):
    """A user's own exception class: its name becomes the task's error."""


def refuse(event: Any, context: Any) -> Any:
    raise ValueError(f"order {event['order']} is not allowed")


def out_of_stock(event: Any, context: Any) -> Any:
    raise OutOfStock("no widgets left")


def describe_context(event: Any, context: Any) -> dict[str, Any]:
    return {
        "function_name": context.function_name,
        "invoked_function_arn": context.invoked_function_arn,
        "memory_limit_in_mb": context.memory_limit_in_mb,
        "remaining_within_timeout": 0 < context.get_remaining_time_in_millis() <= 30_000,
        "request_id_length": len(str(uuid.UUID(context.aws_request_id))),
    }


class Shutdown(BaseException):
    """Not an Exception: Lambda's Python runtime lets it end the process."""


def exits_with_message(event: Any, context: Any) -> Any:
    sys.exit("goodbye")


def interrupted(event: Any, context: Any) -> Any:
    raise KeyboardInterrupt


def base_exception(event: Any, context: Any) -> Any:
    raise Shutdown("stop")


def mutates(event: Any, context: Any) -> dict[str, Any]:
    """Changes every part of its event it can reach; the state's data must not change with it."""
    saw = json.loads(json.dumps(event))
    event["items"].append(99)
    event["order"] = 0
    event["added"] = True
    return {"saw": saw}



def chatty(event: Any, context: Any) -> dict[str, bool]:
    print("a handler writing to stdout", event)
    return {"printed": True}


HANDLERS: dict[str, Callable[[Any, Any], Any]] = {
    "echo": lambda event, context: {"echo": event},
    f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:by-arn": lambda event, context: "registered by ARN",
    "context": describe_context,
    "refuse": refuse,
    "out-of-stock": out_of_stock,
    "returns-a-set": lambda event, context: {1, 2},
    "chatty": chatty,
    "exits-3": lambda event, context: sys.exit(3),
    "exits-quietly": lambda event, context: sys.exit(),
    "exits-with-message": exits_with_message,
    "interrupted": interrupted,
    "base-exception": base_exception,
    "returns-nan": lambda event, context: float("nan"),
    "returns-infinity": lambda event, context: {"deep": [1, {"value": float("-inf")}]},
    "mutates": mutates,
}
STUCK_TIMEOUT = 0.2  # seconds of wall time: how long a stuck function runs before Lambda would end it
UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


class InProcessFlow(Flow):
    """The same sentences, with a client that names no endpoint: `intercept` answers it in-process."""

    def __init__(self, server: Server) -> None:
        super().__init__(server)
        session = boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing",
                                        region_name=TEST_REGION)
        self.sfn = session.client("stepfunctions", config=Config(retries={"max_attempts": 0}))


@pytest.fixture(scope="module", params=["http", "in-process"])
def flow(request: pytest.FixtureRequest, start_server: Callable[..., Server]) -> Iterator[Flow]:
    server = start_server()
    server.emulator.functions.update(HANDLERS)
    released = threading.Event()  # what stuck functions wait for, past their timeout: set when the server closes
    server.emulator.functions.register("stuck", lambda event, context: released.wait(), timeout=STUCK_TIMEOUT)
    server.emulator.functions.register("context", describe_context, timeout=30)
    if request.param == "http":
        yield Flow(server)
    else:
        with intercept(server.emulator):
            yield InProcessFlow(server)
    released.set()


def definition_of(case: dict[str, Any]) -> dict[str, Any]:
    if "definition" in case:
        return case["definition"]
    fields: dict[str, Any] = {}
    if "parameters" in case:
        fields["Parameters"] = case["parameters"]
    if "timeout_seconds" in case:
        fields["TimeoutSeconds"] = case["timeout_seconds"]
    return task(case["resource"], **fields)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["name"])
def test_lambda_callables(flow: Flow, case: dict[str, Any]) -> None:
    described = outcome(flow.run(definition_of(case), case["input"]))
    expect = dict(case["expect"])
    if "invoke_payload" in expect:
        result = described.pop("output")
        assert set(result) == INVOKE_RESULT_MEMBERS
        assert (result["ExecutedVersion"], result["StatusCode"]) == ("$LATEST", 200)
        assert result["SdkHttpMetadata"]["HttpStatusCode"] == 200
        assert result["SdkResponseMetadata"]["RequestId"] == result["SdkHttpMetadata"]["HttpHeaders"]["x-amzn-RequestId"]
        assert result["Payload"] == expect.pop("invoke_payload")
    if isinstance(expect.get("cause"), dict):
        report = json.loads(described.pop("cause"))
        assert set(report) == {"errorMessage", "errorType", "requestId", "stackTrace"}
        uuid.UUID(report.pop("requestId"))
        assert all(isinstance(line, str) for line in report.pop("stackTrace"))
        assert report == expect.pop("cause")
    if "cause_text" in expect:
        pattern = re.escape(expect.pop("cause_text")).replace(re.escape("<uuid>"), UUID)
        assert re.fullmatch(pattern, described.pop("cause")), described
    if "cause_prefix" in expect:
        assert described.pop("cause").startswith(expect.pop("cause_prefix"))
    assert described == expect


def test_a_raised_exception_reports_the_handlers_own_frames(flow: Flow) -> None:
    described = flow.run(task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:refuse"), {"order": 1})
    stack = json.loads(described["cause"])["stackTrace"]
    assert len(stack) == 1 and "in refuse" in stack[0] and __file__ in stack[0]


def test_an_unregistered_function_logs_how_to_map_it(flow: Flow, caplog: pytest.LogCaptureFixture) -> None:
    name = f"never-mapped-{uuid.uuid4().hex[:8]}"  # the hint is logged once per function and process
    with caplog.at_level(logging.WARNING, logger="sfn_emulator.resources.base"):
        flow.run(task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:{name}"))
    hints = [record.getMessage() for record in caplog.records if name in record.getMessage()]
    assert hints == [
        f"No Python callable is registered for the Lambda function arn:aws:lambda:us-east-1:{ACCOUNT}:function:"
        f"{name}: register a Python callable for it (`Emulator.functions.register(name_or_arn, handler)`)."]


@pytest.fixture
def hanging(flow: Flow) -> Iterator[threading.Event]:
    """A function that blocks until released; released when the test ends, so its thread ends too."""
    release = threading.Event()
    flow.server.emulator.functions.register("hang", lambda event, context: release.wait(60) and "released")
    yield release
    release.set()


def test_a_hanging_callable_times_out_its_task_and_harms_no_other_execution(flow: Flow, hanging: threading.Event) -> None:
    stuck = flow.start(flow.machine(task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:hang", TimeoutSeconds=1)))
    others = [flow.start(flow.machine(task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:echo")), {"n": n})
              for n in range(3)]
    flow.settle()

    assert outcome(flow.describe(stuck)) == {"status": "FAILED", "error": "States.Timeout"}
    assert flow.event_types(stuck)[-2:] == ["LambdaFunctionTimedOut", "ExecutionFailed"]
    assert [outcome(flow.describe(arn)) for arn in others] == [
        {"status": "SUCCEEDED", "output": {"echo": {"n": n}}} for n in range(3)]


def test_fifty_hung_callables_fail_at_their_function_timeout_and_block_no_other_task(flow: Flow) -> None:
    hung = [flow.start(flow.machine(task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:stuck")), {"n": n})
            for n in range(50)]
    normal = flow.start(flow.machine(task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:echo")), {"n": "normal"})
    flow.settle()

    assert outcome(flow.describe(normal)) == {"status": "SUCCEEDED", "output": {"echo": {"n": "normal"}}}
    failures = [flow.describe(arn) for arn in hung]
    assert {(described["status"], described["error"]) for described in failures} == {("FAILED", "Sandbox.Timedout")}
    timed_out = re.escape('{"errorType":"Sandbox.Timedout","errorMessage":"RequestId: ') + UUID + re.escape(
        ' Error: Task timed out after 0.20 seconds"}')
    assert all(re.fullmatch(timed_out, described["cause"]) for described in failures)
    assert outcome(flow.run(task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:echo"), 2)) == {
        "status": "SUCCEEDED", "output": {"echo": 2}}


TIMED_OUT_REPORT = re.escape('{"errorType":"Sandbox.Timedout","errorMessage":"RequestId: ') + UUID + re.escape(
    ' Error: Task timed out after 0.20 seconds"}')


@pytest.mark.parametrize("resource, parameters, ends", [
    pytest.param(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:stuck", None, "the task fails", id="function ARN"),
    pytest.param("arn:aws:states:::lambda:invoke", {"FunctionName": "stuck", "Payload": {"n": 1}}, "the task fails",
                 id="lambda:invoke"),
    pytest.param("arn:aws:states:::aws-sdk:lambda:invoke", {"FunctionName": "stuck", "Payload": "{}"},
                 "the call succeeds with FunctionError", id="aws-sdk:lambda:invoke"),
])
def test_a_function_past_its_timeout_ends_as_lambda_reports_it_through_each_resource(
        flow: Flow, resource: str, parameters: dict[str, Any] | None, ends: str) -> None:
    fields = {"Parameters": parameters} if parameters is not None else {}
    described = flow.run(task(resource, **fields), {"n": 1})

    if ends == "the task fails":
        assert (described["status"], described["error"]) == ("FAILED", "Sandbox.Timedout")
        assert re.fullmatch(TIMED_OUT_REPORT, described["cause"])
    else:
        output = json.loads(described["output"])
        assert described["status"] == "SUCCEEDED"
        assert (output["FunctionError"], output["StatusCode"]) == ("Unhandled", 200)
        assert re.fullmatch(TIMED_OUT_REPORT, output["Payload"])


def test_a_callable_runs_on_the_thread_that_calls_it(flow: Flow) -> None:
    """One thread per call: the task's worker runs the handler itself, no second thread waits on it."""
    flow.server.emulator.functions.register("thread-name", lambda event, context: threading.current_thread().name)

    assert outcome(flow.run(task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:thread-name"))) == {
        "status": "SUCCEEDED", "output": "sfn-task"}


def test_the_answer_of_a_callable_past_its_timeout_is_dropped(flow: Flow) -> None:
    entered, release, workers = threading.Event(), threading.Event(), []

    def late(event: Any, context: Any) -> str:
        workers.append(threading.current_thread())
        entered.set()
        release.wait()
        return "too late"

    flow.server.emulator.functions.register("late", late, timeout=STUCK_TIMEOUT)
    arn = flow.start(flow.machine(task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:late")))
    flow.settle()
    timed_out, history = outcome(flow.describe(arn)), flow.events(arn)
    assert entered.wait(60), "the handler never ran"
    release.set()
    workers[0].join()
    flow.settle()

    assert timed_out["error"] == "Sandbox.Timedout"
    assert (outcome(flow.describe(arn)), flow.events(arn)) == (timed_out, history)
    assert flow.event_types(arn)[-2:] == ["LambdaFunctionFailed", "ExecutionFailed"]


def test_failing_and_printing_callables_leave_the_server_serving(flow: Flow) -> None:
    machine = flow.machine({"StartAt": "P", "States": {"P": {"Type": "Parallel", "End": True, "Branches": [
        task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:chatty"),
        {"StartAt": "Other", "States": {"Other": {
            "Type": "Task", "Resource": f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:returns-a-set", "End": True}}},
    ]}}})
    failed = flow.start(machine)
    flow.settle()
    assert flow.describe(failed)["error"] == "Runtime.MarshalError"
    assert outcome(flow.run(task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:echo"), 1)) == {
        "status": "SUCCEEDED", "output": {"echo": 1}}


def test_lambda_invoke_wait_for_task_token_returns_what_the_test_sends(flow: Flow) -> None:
    received: list[Any] = []
    flow.server.emulator.functions.register("remember", lambda event, context: received.append(event))
    definition = task("arn:aws:states:::lambda:invoke.waitForTaskToken",
                      Parameters={"FunctionName": "remember", "Payload": {"token.$": "$$.Task.Token", "order.$": "$.order"}})
    execution = flow.start(flow.machine(definition), {"order": 7})
    flow.settle()
    assert flow.describe(execution)["status"] == "RUNNING"
    [event] = received
    assert event["order"] == 7

    flow.sfn.send_task_success(taskToken=event["token"], output=json.dumps({"approved": True}))
    flow.settle()
    assert outcome(flow.describe(execution)) == {"status": "SUCCEEDED", "output": {"approved": True}}
    assert flow.event_types(execution) == [
        "ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted", "TaskSucceeded",
        "TaskStateExited", "ExecutionSucceeded"]


@pytest.mark.parametrize("log_type", ["Tail", "None", None])
def test_lambda_invoke_answers_the_log_tail_only_when_log_type_is_tail(flow: Flow, log_type: str | None) -> None:
    parameters: dict[str, Any] = {"FunctionName": "echo", "Payload": {"a": 1}}
    if log_type is not None:
        parameters["LogType"] = log_type
    result = outcome(flow.run(task("arn:aws:states:::lambda:invoke", Parameters=parameters), {}))["output"]
    headers = result["SdkHttpMetadata"]["HttpHeaders"]
    if log_type != "Tail":
        assert set(result) == INVOKE_RESULT_MEMBERS and "X-Amz-Log-Result" not in headers
        return
    assert set(result) == INVOKE_RESULT_MEMBERS | {"LogResult"}
    assert headers["X-Amz-Log-Result"] == result["LogResult"]
    log = base64.b64decode(result["LogResult"]).decode()
    assert log.splitlines()[0].startswith("START RequestId: ") and log.splitlines()[-1].startswith("REPORT RequestId: ")


@pytest.mark.parametrize("resource, parameters", [
    ("arn:aws:states:::lambda:invoke", {"FunctionName": "hang", "Payload": None}),
    (f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:hang", None),
])
def test_a_caught_time_out_has_an_empty_cause(flow: Flow, hanging: threading.Event, resource: str,
                                              parameters: dict[str, Any] | None) -> None:
    fields: dict[str, Any] = {"TimeoutSeconds": 1, "Catch": [{"ErrorEquals": ["States.Timeout"], "Next": "Handled"}]}
    if parameters is not None:
        fields["Parameters"] = parameters
    definition = task(resource, **fields)
    definition["States"]["Handled"] = {"Type": "Pass", "End": True}
    execution = flow.start(flow.machine(definition))
    flow.settle()
    assert outcome(flow.describe(execution)) == {"status": "SUCCEEDED",
                                                 "output": {"Error": "States.Timeout", "Cause": ""}}
    timed_out = [event for event in flow.events(execution) if event["type"].endswith("TimedOut")]
    assert [details for event in timed_out for key, details in event.items() if key.endswith("EventDetails")
            and "cause" in details] == []  # the history has no cause
