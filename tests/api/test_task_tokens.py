"""Task tokens read from history: `ExecutionResult.task_token(state)`, `token_waits`, and the plugin's
`sfn_emulator.task_token(execution_arn, state)`, so a test answers a callback in one line."""

from __future__ import annotations

import re

import pytest
from helpers.paths import FIXTURES_ROOT

from sfn_emulator import run_definition
from sfn_emulator.results.history_tokens import NoTaskToken

MACHINES = FIXTURES_ROOT / "machines"
HOLD = {"hold": lambda event, context: None}
TOKEN = re.compile(r"[0-9a-f]{64}")


def test_each_waiting_state_has_its_token_whatever_the_query_language() -> None:
    result = run_definition(MACHINES / "TwoApprovals.asl.json", functions=HOLD)
    result.assert_status("RUNNING")
    manager, finance = result.task_token("Manager"), result.task_token("Finance")
    assert TOKEN.fullmatch(manager) and TOKEN.fullmatch(finance) and manager != finance
    assert result.token_waits == {"Manager": manager, "Finance": finance}


def test_a_state_with_no_task_or_no_token_is_explained() -> None:
    result = run_definition(MACHINES / "TwoApprovals.asl.json", functions=HOLD)
    with pytest.raises(NoTaskToken, match=r"no task was scheduled in state 'Approvals'; "
                                          r"states entered: Approvals, Manager, Finance"):
        result.task_token("Approvals")
    plain = run_definition({"StartAt": "Call", "States": {"Call": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "End": True,
        "Parameters": {"FunctionName": "hold", "Payload": {"id": "a" * 64 + "x"}}}}}, functions=HOLD)
    with pytest.raises(LookupError, match=r"the task of state 'Call' was given no task token"):
        plain.task_token("Call")
    assert plain.token_waits == {}


def test_the_latest_retry_holds_the_token_and_answered_tasks_stop_waiting(sfn_emulator, sfn_client) -> None:
    retried = {"StartAt": "Approve", "States": {"Approve": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken", "End": True,
        "Parameters": {"FunctionName": "hold", "Payload": {"token.$": "$$.Task.Token"}},
        "Retry": [{"ErrorEquals": ["Busy"], "IntervalSeconds": 60}]}}}
    sfn_emulator.register("hold", HOLD["hold"])
    first = sfn_emulator.run(retried)
    token = sfn_emulator.task_token(first.execution_arn, "Approve")
    sfn_client.send_task_failure(taskToken=token, error="Busy")
    again = sfn_emulator.wait(first.execution_arn)
    retry_token = sfn_emulator.task_token(first.execution_arn, "Approve")
    assert retry_token != token and again.token_waits == {"Approve": retry_token}
    sfn_client.send_task_success(taskToken=retry_token, output='{"approved": true}')
    sfn_emulator.wait(first.execution_arn).assert_output({"approved": True})
