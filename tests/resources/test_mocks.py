"""Mocked Task responses from a mock configuration file in AWS Step Functions Local's format.

Table-driven from fixtures/resources/mock_files/: invalid.json (files rejected, with the exact message),
lookups.json (MockConfig answering requests one by one) and executions.json (whole executions on
the engine, among them AWS's own LambdaSQSIntegration example from fixtures/mocks/, unchanged).
"""

from __future__ import annotations

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT, REPOSITORY

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.parser import parse_definition
from sfn_emulator.asl.task_targets import parse_resource
from sfn_emulator.clock.virtual_clock import Clock
from sfn_emulator.engine import Engine, Execution
from sfn_emulator.resources.base import TaskRequest, TaskResources
from sfn_emulator.resources.outcomes import BoundCall, bound_call
from sfn_emulator.resources.mock_file import MockConfigError, read_mock_config
from sfn_emulator.resources.mocks import MockConfig

FIXTURES = FIXTURES_ROOT / "resources" / "mock_files"
ACCOUNT = "123456789012"
REGION = "us-east-1"
WAIT_LIMIT_SECONDS = 10.0  # a hang fails the test instead of blocking the suite


def load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def write(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def request(state: str, *, machine: str = "Orders", case: str | None = "HappyPath",
            execution: str = f"arn:aws:states:{REGION}:{ACCOUNT}:execution:Orders:run-1",
            resource: str = "arn:aws:states:::lambda:invoke") -> TaskRequest:
    return TaskRequest(resource=parse_resource(resource), payload={}, execution_arn=execution,
                       state_machine_name=machine, state_name=state, account=ACCOUNT, region=REGION,
                       test_case=case)


def answer(mocks: MockConfig, task: TaskRequest) -> dict[str, Any]:
    """What the mocked answer to the request is, as a fixture writes it."""
    try:
        return {"result": mocks.answer(task)}
    except StatesError as error:
        return {"error": error.error, "cause": error.cause}


# -- files that cannot be used --------------------------------------------------------------------

@pytest.mark.parametrize("case", load("invalid.json")["cases"], ids=lambda case: case["name"])
def test_an_unusable_file_is_rejected_saying_what_is_wrong_and_where(case: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / case["file"]
    path.write_text(case["text"] if "text" in case else json.dumps(case["document"]), encoding="utf-8")
    with pytest.raises(MockConfigError) as raised:
        MockConfig.load(path)
    assert str(raised.value) == case["message"].replace("{path}", str(path))


def test_a_missing_file_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "absent.json"
    with pytest.raises(MockConfigError) as raised:
        MockConfig.load(path)
    assert str(raised.value) == f"mock config {path}: cannot read the file: [Errno 2] No such file or directory: '{path}'"


# -- requests, one by one ---------------------------------------------------------------------------

LOOKUPS = load("lookups.json")


@pytest.mark.parametrize("case", LOOKUPS["cases"], ids=lambda case: case["name"])
def test_lookup(case: dict[str, Any], tmp_path: Path) -> None:
    path = write(tmp_path / "mocks.json", case["config"])
    mocks = MockConfig.load(path)
    for number, call in enumerate(case["calls"]):
        values = {**LOOKUPS["defaults"], **call}
        task = request(values["state"], machine=values["machine"], case=values["case"],
                       execution=values["execution"], resource=values["resource"])
        assert (mocks.bind(task) is not None) is call["matches"], f"call {number}"
        if not call["matches"]:
            continue
        expected = ({"result": call["result"]} if "result" in call
                    else {"error": call["error"], "cause": call["cause"] and call["cause"].replace("{path}", str(path))})
        assert answer(mocks, task) == expected, f"call {number}"


def test_each_answer_is_a_fresh_copy_of_the_mocked_value(tmp_path: Path) -> None:
    mocks = MockConfig.load(write(tmp_path / "mocks.json", {
        "StateMachines": {"Orders": {"TestCases": {"HappyPath": {"Charge": "Charged"}}}},
        "MockedResponses": {"Charged": {"0-1": {"Return": {"Payload": {"items": [1]}}}}},
    }))
    first = mocks.answer(request("Charge"))
    first["Payload"]["items"].append(2)
    assert mocks.answer(request("Charge")) == {"Payload": {"items": [1]}}


def test_a_forgotten_execution_counts_from_zero_again(tmp_path: Path) -> None:
    mocks = MockConfig.load(write(tmp_path / "mocks.json", {
        "StateMachines": {"Orders": {"TestCases": {"HappyPath": {"Charge": "Once"}}}},
        "MockedResponses": {"Once": {"0": {"Return": "charged"}}},
    }))
    assert mocks.answer(request("Charge")) == "charged"
    mocks.forget_execution(request("Charge").execution_arn)
    assert mocks.answer(request("Charge")) == "charged"


def test_concurrent_invocations_of_one_state_each_take_a_different_response(tmp_path: Path) -> None:
    count = 200
    mocks = MockConfig.load(write(tmp_path / "mocks.json", {
        "StateMachines": {"Orders": {"TestCases": {"HappyPath": {"Charge": "Numbered"}}}},
        "MockedResponses": {"Numbered": {str(number): {"Return": number} for number in range(count)}},
    }))
    start = threading.Barrier(8)

    def invoke(index: int) -> Any:
        if index < 8:
            start.wait(WAIT_LIMIT_SECONDS)  # the first call of each of the 8 workers starts at once
        return mocks.answer(request("Charge"))

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(invoke, range(count)))
    assert sorted(results) == list(range(count))


# -- YAML -------------------------------------------------------------------------------------------

def test_yaml_reads_like_json_with_unquoted_keys_and_timestamps_kept_as_strings() -> None:
    document = read_mock_config(FIXTURES_ROOT / "mocks" / "OrderPolling.yaml")
    accepted = document.responses["OrderAccepted"].at(0)
    assert accepted is not None and accepted.answer() == {
        "StatusCode": 200, "Payload": {"orderId": "order-1", "placedAt": "2024-01-01T00:00:00Z"}}
    assert document.responses["PendingTwiceThenShipped"].range_ends == (1, 2)


def test_the_aws_example_file_loads_unchanged() -> None:
    document = read_mock_config(FIXTURES_ROOT / "mocks" / "LambdaSQSIntegration.json")
    assert document.state_machines == {"LambdaSQSIntegration": {
        "HappyPath": {"LambdaState": "MockedLambdaSuccess", "SQSState": "MockedSQSSuccess"},
        "RetryPath": {"LambdaState": "MockedLambdaRetry", "SQSState": "MockedSQSSuccess"},
        "HybridPath": {"LambdaState": "MockedLambdaSuccess"},
    }}
    assert {name: response.range_ends for name, response in document.responses.items()} == {
        "MockedLambdaSuccess": (0,), "LambdaMockedResourceNotReady": (0,), "MockedSQSSuccess": (0,),
        "MockedLambdaRetry": (0, 2, 3)}


# -- re-reading the file when it changes -----------------------------------------------------------

def _rewrite(path: Path, document: Any) -> None:
    """Write new content with a later modification time than before (no waiting for the clock)."""
    before = path.stat().st_mtime_ns
    write(path, document)
    os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))


def _config(response: Any) -> dict[str, Any]:
    return {"StateMachines": {"Orders": {"TestCases": {"HappyPath": {"Charge": "Charged"}}}},
            "MockedResponses": {"Charged": {"0-9": {"Return": response}}}}


def test_an_edited_file_is_used_from_the_next_task_on(tmp_path: Path) -> None:
    path = write(tmp_path / "mocks.json", _config("before"))
    mocks = MockConfig.load(path)
    assert mocks.answer(request("Charge")) == "before"
    _rewrite(path, _config("after"))
    assert mocks.answer(request("Charge")) == "after"


def test_an_edit_that_mocks_a_new_state_takes_it_over(tmp_path: Path) -> None:
    path = write(tmp_path / "mocks.json", _config("charged"))
    mocks = MockConfig.load(path)
    assert mocks.bind(request("Ship")) is None
    document = _config("charged")
    document["StateMachines"]["Orders"]["TestCases"]["HappyPath"]["Ship"] = "Charged"
    _rewrite(path, document)
    assert mocks.bind(request("Ship")) is not None


def test_a_broken_edit_fails_mocked_tasks_with_the_load_error_until_it_is_fixed(tmp_path: Path) -> None:
    path = write(tmp_path / "mocks.json", _config("before"))
    mocks = MockConfig.load(path)
    _rewrite(path, {"StateMachines": {"Orders": {"TestCases": {"HappyPath": {"Charge": "Gone"}}}}, "MockedResponses": {}})
    broken = (f"mock config {path}: StateMachines.Orders.TestCases.HappyPath.Charge names the response 'Gone', "
              "which MockedResponses does not define")
    assert mocks.bind(request("Ship")) is not None  # no state of a mocked execution runs on a half-known configuration
    assert answer(mocks, request("Ship")) == {"error": "States.Runtime", "cause": broken}
    assert mocks.bind(request("Charge", case=None)) is None  # executions without a test case are unaffected
    _rewrite(path, _config("fixed"))
    assert mocks.bind(request("Ship")) is None
    assert mocks.answer(request("Charge")) == "fixed"


def test_a_deleted_file_fails_mocked_tasks_until_it_is_back(tmp_path: Path) -> None:
    path = write(tmp_path / "mocks.json", _config("before"))
    mocks = MockConfig.load(path)
    path.unlink()
    assert answer(mocks, request("Charge")) == {
        "error": "States.Runtime",
        "cause": f"mock config {path}: cannot read the file: [Errno 2] No such file or directory: '{path}'"}
    write(path, _config("back"))
    assert mocks.answer(request("Charge")) == "back"


# -- whole executions on the engine ----------------------------------------------------------------

class RealResourceStandIn:
    """Every resource that is not mocked: answers which state ran for real."""

    def bind(self, task: TaskRequest) -> BoundCall:
        return bound_call(task, lambda: {"ranForReal": task.state_name})


OUTCOME_EVENTS = {"TaskSucceeded", "TaskFailed", "LambdaFunctionSucceeded", "LambdaFunctionFailed"}


def _run(mocks: MockConfig, definition: str, machine: str, test_case: str, execution_input: Any) -> Execution:
    engine = Engine(Clock("auto", start=datetime(2024, 1, 1, tzinfo=timezone.utc)),
                    TaskResources([mocks, RealResourceStandIn()]))
    try:
        execution = Execution(
            arn=f"arn:aws:states:{REGION}:{ACCOUNT}:execution:{machine}:run-1",
            name="run-1",
            state_machine_arn=f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:{machine}",
            state_machine_name=machine,
            machine=parse_definition(definition),
            definition=definition,
            input=json.dumps(execution_input),
            start_date=engine.clock.now(),
            account=ACCOUNT,
            region=REGION,
            role_arn=f"arn:aws:iam::{ACCOUNT}:role/mock-tests",
            test_case=test_case,
        )
        engine.start(execution)
        assert engine.wait(execution, WAIT_LIMIT_SECONDS), f"still {execution.status}"
        return execution
    finally:
        engine.close()


@pytest.mark.parametrize("case", load("executions.json")["cases"], ids=lambda case: case["name"])
def test_execution(case: dict[str, Any], tmp_path: Path) -> None:
    if "mock_file" in case:
        path = REPOSITORY / case["mock_file"]
    else:
        path = write(tmp_path / "mocks.json", case["mock_config"])
    if "definition_file" in case:
        definition = (REPOSITORY / case["definition_file"]).read_text(encoding="utf-8")
    else:
        definition = json.dumps(case["definition"])
    execution = _run(MockConfig.load(path), definition, case["machine"], case["test_case"], case["input"])

    expect = case["expect"]
    assert execution.status == expect["status"], (execution.error, execution.cause)
    if "output" in expect:
        assert json.loads(execution.output or "null") == expect["output"]
    else:
        assert (execution.error, execution.cause) == (expect["error"], expect["cause"].replace("{path}", str(path)))
    outcomes = [event for event in execution.history if event["type"] in OUTCOME_EVENTS]
    assert [event["type"] for event in outcomes] == expect["outcomes"]
    failures = [{"error": details["error"], "cause": details.get("cause")}
                for event in outcomes if event["type"].endswith("Failed")
                for details in [next(value for key, value in event.items() if key.endswith("EventDetails"))]]
    if "failures" in expect:
        assert failures == expect["failures"]
