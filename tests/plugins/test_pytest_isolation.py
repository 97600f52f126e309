"""A suite is many tests: what one test leaves behind (a callback racing its timeout, a long Wait)
changes no other test's outcome, in one process, on pytest-xdist workers and against a server;
the test that left it gets one warning naming what was stopped."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

import sfn_emulator.inprocess  # noqa: F401  (imported once: see test_pytest_plugin.py)
import sfn_emulator_plugins.pytest_emulator  # noqa: F401

pytest_plugins = ["pytester"]
QUIET = ("-p", "no:hypothesispytest", "-p", "no:cacheprovider", "-p", "no:randomly")

# The first test starts an activity task with a timeout (someone outside races it: the auto clock
# may not jump while it waits) and a year-long Wait, and ends without answering either.
SUITE = """
YEAR = {"StartAt": "Sleep", "States": {"Sleep": {"Type": "Wait", "Seconds": 31536000, "End": True}}}
COOLING_OFF = {"StartAt": "CoolingOffPeriod", "States": {
    "CoolingOffPeriod": {"Type": "Wait", "Seconds": 86400, "Next": "Refund"},
    "Refund": {"Type": "Pass", "Result": "refunded", "End": True}}}


def test_leaves_a_callback_and_a_wait_behind(sfn_emulator, sfn_client):
    activity = sfn_client.create_activity(name="approve")["activityArn"]
    approval = {"StartAt": "AwaitApproval", "States": {"AwaitApproval": {
        "Type": "Task", "Resource": activity, "TimeoutSeconds": 300, "End": True}}}
    assert sfn_emulator.run(approval, name="Approval").status == "RUNNING"
    machine = sfn_emulator.create_state_machine(YEAR, name="Year")
    sfn_client.start_execution(stateMachineArn=machine, name="sleeper")


def test_a_day_long_wait_after_it(sfn_emulator):
    sfn_emulator.run(COOLING_OFF, name="Refund").assert_succeeded(output="refunded")


def test_another_day_long_wait(sfn_emulator):
    sfn_emulator.run(COOLING_OFF, name="Refund").assert_succeeded(output="refunded")
"""


def _suite(pytester: pytest.Pytester) -> None:
    # Two files, each run whole by one worker under --dist loadfile: on each worker the leftovers
    # come first and the day-long Waits after them.
    pytester.makepyfile(test_first=textwrap.dedent(SUITE), test_second=textwrap.dedent(SUITE))


def _assert_isolated(result: pytest.RunResult) -> None:
    result.assert_outcomes(passed=6, warnings=2)
    result.stdout.fnmatch_lines([
        "*ExecutionsLeftRunning: the test left 2 execution(s) running in its account *; sfn-emulator stopped them "
        "at teardown*:execution:Approval:*, arn:aws:states:*:execution:Year:sleeper",
    ])


def test_leftovers_change_nothing_in_one_process(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    _assert_isolated(pytester.runpytest(*QUIET))


def test_leftovers_change_nothing_on_xdist_workers(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    _assert_isolated(pytester.runpytest_subprocess(*QUIET, "-p", "xdist", "-n", "2", "--dist", "loadfile"))


def test_leftovers_change_nothing_against_a_server(pytester: pytest.Pytester, emulator_server: Any) -> None:
    _suite(pytester)
    _assert_isolated(pytester.runpytest(*QUIET, f"--sfn-emulator-endpoint={emulator_server.endpoint_url}"))


def test_without_the_teardown_the_day_long_wait_would_stall(pytester: pytest.Pytester) -> None:
    """The case the teardown answers: leftovers kept running (the shared account, which the plugin
    leaves alone) hold the auto clock, and the next test's Wait does not end."""
    pytester.makeconftest("""
        import pytest

        def pytest_collection_modifyitems(items):
            for item in items:
                item.add_marker(pytest.mark.sfn_emulator_shared)
    """)
    pytester.makepyfile(test_first=textwrap.dedent(SUITE))
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines([
        "*waiting in state 'CoolingOffPeriod' (Wait) with input {}",
        "*note: the auto clock cannot jump to this execution's next timer while execution "
        "arn:aws:states:us-east-1:123456789012:execution:Approval:* (account 123456789012) waits for a callback or "
        "an activity worker with a deadline running*",
    ])


def test_a_missing_function_is_named_in_the_failure_with_a_guess(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_typo=textwrap.dedent("""
        CHARGE = {"StartAt": "Charge", "States": {"Charge": {
            "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
            "Parameters": {"FunctionName": "chrage"}, "End": True}}}

        def test_typo(sfn_emulator):
            sfn_emulator.register("charge", lambda event, context: {})
            sfn_emulator.run(CHARGE).assert_succeeded()
    """))
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*error: Lambda.ResourceNotFoundException",
        "*note: no function mapped for ARN arn:aws:lambda:us-east-1:*:function:chrage; did you mean 'charge'? "
        "Register one with sfn_emulator.register('chrage', handler)",
    ])


def test_clients_are_shared_by_no_state(pytester: pytest.Pytester) -> None:
    """The session's clients go from test to test, each acting in its test's account; one a test
    changed (a botocore Stubber left active) is not handed on."""
    pytester.makepyfile(test_clients=textwrap.dedent("""
        import pytest
        from botocore.exceptions import ClientError
        from botocore.stub import Stubber

        PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}

        def test_leaves_a_stub_active(sfn_client):
            stub = Stubber(sfn_client)
            stub.add_client_error("list_state_machines", "Stubbed")
            stub.activate()
            with pytest.raises(ClientError, match="Stubbed"):
                sfn_client.list_state_machines()

        @pytest.mark.parametrize("test", ["first", "second"])
        def test_own_account_and_unstubbed_client(sfn_client, sfn_emulator, test):
            assert sfn_client.list_state_machines()["stateMachines"] == []
            arn = sfn_emulator.create_state_machine(PASS, name="Mine")
            assert arn.split(":")[4] == sfn_emulator.account
            assert [m["stateMachineArn"] for m in sfn_client.list_state_machines()["stateMachines"]] == [arn]
    """))
    pytester.runpytest(*QUIET).assert_outcomes(passed=3)


# Two tests on two workers of one server: one races a callback deadline while the other's day-long
# Wait has started; the Wait's test waits for the other to end, and both pass.
RACING = """
import pathlib

def test_races_a_callback_deadline(sfn_emulator, sfn_client):
    activity = sfn_client.create_activity(name="approve")["activityArn"]
    approval = {"StartAt": "AwaitApproval", "States": {"AwaitApproval": {
        "Type": "Task", "Resource": activity, "TimeoutSeconds": 300, "End": True}}}
    execution = sfn_emulator.run(approval, name="Approval")
    assert execution.status == "RUNNING"
    pathlib.Path("racing").touch()
    for _ in range(6000):  # until the other worker's Wait has started (bounded: a minute)
        if pathlib.Path("waiting").exists():
            break
        __import__("time").sleep(0.01)
    task = sfn_client.get_activity_task(activityArn=activity)
    sfn_client.send_task_success(taskToken=task["taskToken"], output='"approved"')
    sfn_emulator.wait(execution.execution_arn).assert_succeeded(output="approved")
"""
WAITING = """
import pathlib

COOLING_OFF = {"StartAt": "CoolingOffPeriod", "States": {
    "CoolingOffPeriod": {"Type": "Wait", "Seconds": 86400, "Next": "Refund"},
    "Refund": {"Type": "Pass", "Result": "refunded", "End": True}}}

def test_a_day_long_wait_meanwhile(sfn_emulator, sfn_client):
    for _ in range(6000):  # until the other worker races its deadline (bounded: a minute)
        if pathlib.Path("racing").exists():
            break
        __import__("time").sleep(0.01)
    machine = sfn_emulator.create_state_machine(COOLING_OFF, name="Refund")
    execution = sfn_client.start_execution(stateMachineArn=machine)["executionArn"]
    pathlib.Path("waiting").touch()
    sfn_emulator.wait(execution).assert_succeeded(output="refunded")
"""


def test_a_test_on_another_worker_racing_a_deadline_delays_but_does_not_fail_a_wait(
        pytester: pytest.Pytester, emulator_server: Any) -> None:
    pytester.makepyfile(test_racing=textwrap.dedent(RACING), test_waiting=textwrap.dedent(WAITING))
    result = pytester.runpytest_subprocess(*QUIET, "-p", "xdist", "-n", "2", "--dist", "loadfile",
                                           f"--sfn-emulator-endpoint={emulator_server.endpoint_url}")
    result.assert_outcomes(passed=2)
