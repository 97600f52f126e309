"""Executions that start each other cannot nest without end, in any dialect: a chain of running
executions, each started by the one before (an ASL `states:startExecution` Task, a Serverless
Workflow subflow, an SM4C `invokeSubflow`), is refused past its depth with AWS's
ExecutionLimitExceeded, and the chain unwinds; stopping the first execution stops the chain."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.dialect_driver import Driver

from sfn_emulator.service import nesting

ROLE = "arn:aws:iam::123456789012:role/nesting"
DEPTH = 5  # the bound in these tests (MAX_NESTING_DEPTH)
REFUSED = "StepFunctions.ExecutionLimitExceededException"


def sw_subflow(name: str, calls: str) -> dict[str, Any]:
    """A Serverless Workflow whose only state runs `calls` as a subflow and waits for it."""
    return {"id": name, "name": name, "states": [
        {"name": "Call", "type": "subflow", "start": {"kind": "default"}, "workflowId": calls,
         "waitForCompletion": True, "end": {"kind": "default"}}]}


def sm4c_subflow(name: str, calls: str) -> dict[str, Any]:
    """An SM4C document whose only state runs `calls` as a subflow and waits for it."""
    return {"id": name, "version": "1.0", "name": name, "states": [
        {"name": "Call", "start": True,
         "enterAction": {"type": "invokeSubflow", "subflowName": calls, "waitForCompletion": True}}]}


def asl_start(calls: str) -> dict[str, Any]:
    """An ASL machine that starts `calls` and waits for it (`.sync:2`)."""
    return {"StartAt": "Call", "States": {"Call": {
        "Type": "Task", "Resource": "arn:aws:states:::states:startExecution.sync:2",
        "Parameters": {"StateMachineArn": f"arn:aws:states:us-east-1:123456789012:stateMachine:{calls}"},
        "End": True}}}


LOOPS = {
    "serverless-workflow": {"ping": sw_subflow("ping", "pong"), "pong": sw_subflow("pong", "ping")},
    "sm4c": {"ping": sm4c_subflow("ping", "pong"), "pong": sm4c_subflow("pong", "ping")},
    "asl": {"ping": asl_start("pong"), "pong": asl_start("ping")},
    "across-dialects": {"ping": sw_subflow("ping", "pong"), "pong": asl_start("tock"), "tock": sm4c_subflow("tock", "ping")},
}


@pytest.fixture
def shallow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nesting, "MAX_NESTING_DEPTH", DEPTH)


def create(driver: Driver, documents: dict[str, Any]) -> dict[str, str]:
    return {name: driver.call("create_state_machine", name=name, roleArn=ROLE,
                              definition=json.dumps(document))["stateMachineArn"]
            for name, document in documents.items()}


def executions(driver: Driver, machines: dict[str, str]) -> list[dict[str, Any]]:
    return [execution for arn in machines.values()
            for execution in driver.call("list_executions", stateMachineArn=arn)["executions"]]


@pytest.mark.parametrize("loop", list(LOOPS))
def test_workflows_that_start_each_other_stop_at_the_nesting_depth(loop: str, driver: Driver, shallow: None) -> None:
    machines = create(driver, LOOPS[loop])
    first = driver.call("start_execution", stateMachineArn=machines["ping"], input="{}")["executionArn"]
    driver.settle()
    started = executions(driver, machines)
    assert len(started) == DEPTH
    assert {execution["status"] for execution in started} == {"FAILED"}
    errors = [driver.call("describe_execution", executionArn=execution["executionArn"])["error"]
              for execution in started]
    assert REFUSED in errors  # the deepest, whose start of one more was refused; the others fail with it
    assert set(errors) <= {REFUSED, "States.TaskFailed"}  # as each dialect reports a failed child
    assert "ExecutionLimitExceeded" in driver.call("describe_execution", executionArn=first)["cause"]


def test_a_chain_that_ends_as_it_goes_is_not_nesting(driver: Driver, shallow: None) -> None:
    """Executions that start the next without waiting end first: only running ancestors count."""
    chain = {f"link{i}": {"StartAt": "Next", "States": {"Next": {
        "Type": "Task", "Resource": "arn:aws:states:::states:startExecution",
        "Parameters": {"StateMachineArn": f"arn:aws:states:us-east-1:123456789012:stateMachine:link{i + 1}"},
        "End": True}}} for i in range(2 * DEPTH)}
    chain[f"link{2 * DEPTH}"] = {"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}
    machines = create(driver, chain)
    driver.call("start_execution", stateMachineArn=machines["link0"], input="{}")
    driver.settle()
    started = executions(driver, machines)
    assert len(started) == 2 * DEPTH + 1
    assert {execution["status"] for execution in started} == {"SUCCEEDED"}


@pytest.mark.parametrize("dialect", ["serverless-workflow", "sm4c"])
def test_stopping_the_first_execution_stops_the_chain(dialect: str, driver: Driver) -> None:
    subflow = sw_subflow if dialect == "serverless-workflow" else sm4c_subflow
    leaf = {"id": "leaf", "version": "1.0", "name": "leaf", "events": [{"name": "Go", "type": "go"}], "states": [
        {"name": "Wait", "start": True, "transitions": [{"nextState": "Done", "eventGroups": [{"events": ["Go"]}]}]},
        {"name": "Done"}]}
    machines = create(driver, {"top": subflow("top", "middle"), "middle": subflow("middle", "leaf"), "leaf": leaf})
    first = driver.call("start_execution", stateMachineArn=machines["top"], input="{}")["executionArn"]
    driver.settle()
    assert {execution["status"] for execution in executions(driver, machines)} == {"RUNNING"}
    driver.call("stop_execution", executionArn=first)
    driver.settle()
    statuses = {name: [execution["status"] for execution in driver.call(
        "list_executions", stateMachineArn=arn)["executions"]] for name, arn in machines.items()}
    assert statuses == {"top": ["ABORTED"], "middle": ["ABORTED"], "leaf": ["ABORTED"]}
