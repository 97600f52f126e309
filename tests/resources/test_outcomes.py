"""A resource's answer, typed by the request's pattern: the task's result, its failure, or a
submission still to be waited on (unless the resource answers whole tasks, as a mock does)."""

from __future__ import annotations

from typing import Any

import pytest

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.engine.task_questions import TaskQuestions
from sfn_emulator.resources.base import TaskRequest, TaskResources, WholeTaskResource, parse_resource
from sfn_emulator.resources.outcomes import Failed, Pending, Succeeded, outcome_of, settled_result


class Answering:
    def __init__(self, answer: Any = None, error: BaseException | None = None) -> None:
        self.answer, self.error = answer, error

    def matches(self, request: TaskRequest) -> bool:
        return True

    def invoke(self, request: TaskRequest) -> Any:
        if self.error is not None:
            raise self.error
        return self.answer


class AnsweringWholeTasks(Answering, WholeTaskResource):
    pass


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
    outcome = outcome_of(Answering({"id": 1}), request(resource))

    assert outcome == (Pending({"id": 1}) if RESOURCES[resource] == "waits" else Succeeded({"id": 1}))


@pytest.mark.parametrize("resource", RESOURCES)
def test_a_whole_task_resource_answers_with_the_result_whatever_the_pattern(resource: str) -> None:
    assert outcome_of(AnsweringWholeTasks({"id": 1}), request(resource)) == Succeeded({"id": 1})


@pytest.mark.parametrize("resource", RESOURCES)
def test_a_raised_states_error_is_the_failure_and_a_bug_a_task_failure(resource: str) -> None:
    error = StatesError("Custom.Error", "why")

    assert outcome_of(Answering(error=error), request(resource)) == Failed(error)
    bug = outcome_of(Answering(error=KeyError("k")), request(resource))
    assert isinstance(bug, Failed) and (bug.error.error, bug.error.cause) == ("States.TaskFailed", "KeyError: 'k'")


def test_a_pending_outcome_has_no_settled_result() -> None:
    assert settled_result(Succeeded([1])) == [1]
    with pytest.raises(StatesError):
        settled_result(Pending([1]))


def test_the_questions_read_the_chain_in_use_and_the_activities_known() -> None:
    chain = TaskResources([Answering()])
    questions = TaskQuestions(resources=lambda: chain, activity_exists=lambda arn, execution: arn.endswith(":known"))
    task = request("arn:aws:states:::lambda:invoke.waitForTaskToken")

    assert not questions.settles_whole_task(task)
    assert questions.settles_whole_task(task, TaskResources([AnsweringWholeTasks()]))
    chain = TaskResources([AnsweringWholeTasks()])
    assert questions.settles_whole_task(task)
    assert not TaskQuestions().settles_whole_task(task)  # nothing serves it: not a whole-task answer
    questions.check_activity("arn:aws:states:us-east-1:111111111111:activity:known", "e")
    with pytest.raises(StatesError) as missing:
        questions.check_activity("arn:aws:states:us-east-1:111111111111:activity:gone", "e")
    assert (missing.value.error, missing.value.cause) == (
        "States.Runtime", "The activity arn:aws:states:us-east-1:111111111111:activity:gone does not exist.")
