"""A resource's call, typed by the request's pattern: the task's result, its failure, or a
submission still to be waited on (unless the call answers the whole task, as a mock's does); and the
router, which finds the one call that answers a request."""

from __future__ import annotations

from typing import Any

import pytest

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.task_targets import parse_resource
from sfn_emulator.resources.base import TaskRequest, TaskResources
from sfn_emulator.resources.outcomes import (
    BoundCall,
    ChildExecution,
    Failed,
    Pending,
    Succeeded,
    bound_call,
    settled_result,
    unless_failed,
    whole_task_call,
)


def answering(answer: Any = None, error: BaseException | None = None) -> Any:
    def answer_or_raise() -> Any:
        if error is not None:
            raise error
        return answer
    return answer_or_raise


def request(resource: str) -> TaskRequest:
    return TaskRequest(resource=parse_resource(resource), payload={}, execution_arn="arn:aws:states:us-east-1:1:execution:m:e",
                       state_machine_name="m", state_name="S", account="111111111111", region="us-east-1")


RESOURCES = {
    "arn:aws:lambda:us-east-1:111111111111:function:f": "request-response",
    "arn:aws:states:us-east-1:111111111111:activity:a": "request-response",
    "arn:aws:states:::sqs:sendMessage": "request-response",
    "arn:aws:states:::lambda:invoke.waitForTaskToken": "waits",
    "arn:aws:states:::states:startExecution.sync": "waits",
    "arn:aws:states:::states:startExecution.sync:2": "waits",
    "arn:aws:states:::aws-sdk:s3:getObject": "request-response",
}


@pytest.mark.parametrize("resource", RESOURCES)
def test_a_callback_or_sync_answer_is_pending_and_any_other_is_the_result(resource: str) -> None:
    outcome = bound_call(request(resource), answering({"id": 1})).invoke()

    assert outcome == (Pending({"id": 1}) if RESOURCES[resource] == "waits" else Succeeded({"id": 1}))


@pytest.mark.parametrize("resource", RESOURCES)
def test_a_pending_call_carries_the_job_that_follows_what_it_submitted(resource: str) -> None:
    job = ChildExecution("arn:aws:states:us-east-1:1:execution:child:c", lambda child: {})
    outcome = bound_call(request(resource), answering({"id": 1}), lambda submitted: job).invoke()

    assert outcome == (Pending({"id": 1}, job) if RESOURCES[resource] == "waits" else Succeeded({"id": 1}))


@pytest.mark.parametrize("resource", RESOURCES)
def test_a_whole_task_call_answers_with_the_result_whatever_the_pattern(resource: str) -> None:
    call = whole_task_call(request(resource), answering({"id": 1}))

    assert call.answers_whole_task and call.invoke() == Succeeded({"id": 1})


@pytest.mark.parametrize("resource", RESOURCES)
@pytest.mark.parametrize("make_call", [bound_call, whole_task_call])
def test_a_raised_states_error_is_the_failure_and_a_bug_a_task_failure(resource: str, make_call: Any) -> None:
    error = StatesError("Custom.Error", "why")

    assert make_call(request(resource), answering(error=error)).invoke() == Failed(error)
    bug = make_call(request(resource), answering(error=KeyError("k"))).invoke()
    assert isinstance(bug, Failed) and (bug.error.error, bug.error.cause) == ("States.TaskFailed", "KeyError: 'k'")


def test_a_settled_result_is_a_success_s_and_a_failure_raises() -> None:
    error = StatesError("Custom.Error", "why")
    assert settled_result(Succeeded([1])) == [1]
    with pytest.raises(StatesError) as raised:
        settled_result(Failed(error))
    assert raised.value is error
    with pytest.raises(StatesError):
        settled_result(Pending([1]))
    assert unless_failed(Pending([1])) == Pending([1])
    with pytest.raises(StatesError):
        unless_failed(Failed(error))


class Serving:
    """Serves the requests of one state, answering with its name: one lookup per call, counted."""

    def __init__(self, state: str) -> None:
        self.state, self.lookups = state, 0

    def bind(self, request: TaskRequest) -> BoundCall | None:
        self.lookups += 1
        return bound_call(request, lambda: self.state) if request.state_name == self.state else None


def test_the_router_binds_the_first_resource_that_serves_the_request_once() -> None:
    first, second = Serving("Other"), Serving("S")
    call = TaskResources([first, second, Serving("S")]).route(request("arn:aws:states:::sqs:sendMessage"))

    assert call.invoke() == Succeeded("S")
    assert (first.lookups, second.lookups) == (1, 1)


@pytest.mark.parametrize("resource, error, cause", [
    ("arn:aws:lambda:us-east-1:111111111111:function:f", "Lambda.ResourceNotFoundException",
     "Function not found: arn:aws:lambda:us-east-1:111111111111:function:f:$LATEST (Service: AWSLambda; "
     "Status Code: 404; Error Code: ResourceNotFoundException; Request ID: <any>; Proxy: null)"),
    ("arn:aws:states:::sqs:sendMessage", "States.Runtime",
     "sfn-emulator cannot run the resource 'arn:aws:states:::sqs:sendMessage': no mock test case, registered "
     "callable or built-in integration serves it."),
])
def test_a_request_nothing_serves_is_a_call_that_fails(resource: str, error: str, cause: str) -> None:
    outcome = TaskResources([Serving("Other")]).route(request(resource)).invoke()

    assert isinstance(outcome, Failed) and outcome.error.error == error
    before, _, after = cause.partition("<any>")
    assert outcome.error.cause.startswith(before) and outcome.error.cause.endswith(after)


def test_the_hint_for_an_unserved_function_is_logged_once_per_chain(caplog: pytest.LogCaptureFixture) -> None:
    chain, other = TaskResources(), TaskResources()
    task = request("arn:aws:lambda:us-east-1:111111111111:function:f")
    for resources in (chain, chain, other):
        resources.route(task)

    hints = [record for record in caplog.records if "No Python callable is registered" in record.getMessage()]
    assert len(hints) == 2
