"""The pytest plugin, as a user meets it: small test files run by pytest (`pytester`), outcomes checked."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
from typing import Any

import pytest

# Imported here, once: pytester's in-process sessions drop the modules they import when they end,
# and would import the emulator (and moto) afresh each time.
import sfn_emulator.inprocess  # noqa: F401
import sfn_emulator_plugins.pytest_emulator  # noqa: F401

pytest_plugins = ["pytester"]

CHARGE = """
CHARGE = {
    "StartAt": "Validate",
    "States": {
        "Validate": {"Type": "Pass", "Next": "Charge"},
        "Charge": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                   "Parameters": {"FunctionName": "charge", "Payload.$": "$"}, "OutputPath": "$.Payload",
                   "End": True},
    },
}
"""


# Plugins the inner sessions do not need, and which would only slow them down.
QUIET = ("-p", "no:hypothesispytest", "-p", "no:cacheprovider", "-p", "no:randomly")


def run_tests(pytester: pytest.Pytester, source: str, *arguments: str) -> pytest.RunResult:
    pytester.makepyfile(test_user=CHARGE + textwrap.dedent(source))
    return pytester.runpytest(*QUIET, *arguments)


def test_fixtures_run_a_definition_with_a_registered_callable(pytester: pytest.Pytester) -> None:
    result = run_tests(pytester, """
        import json

        def test_run(sfn_emulator):
            sfn_emulator.register("charge", lambda event, context: {"paid": event["amount"]})
            result = sfn_emulator.run(CHARGE, {"amount": 5})
            result.assert_succeeded(output={"paid": 5})
            assert result.visited_states == ["Validate", "Charge"]

        def test_client(sfn_client, sfn_emulator):
            machine = sfn_client.create_state_machine(
                name="hello", definition=json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}),
                roleArn=f"arn:aws:iam::{sfn_emulator.account}:role/r")
            assert machine["stateMachineArn"].split(":")[4] == sfn_emulator.account
            execution = sfn_client.start_execution(stateMachineArn=machine["stateMachineArn"], input="[1]")
            assert sfn_emulator.wait(execution["executionArn"]).output == [1]
    """)
    result.assert_outcomes(passed=2)


def test_a_failed_assertion_shows_the_failing_state_its_input_and_the_error(pytester: pytest.Pytester) -> None:
    result = run_tests(pytester, """
        def declined(event, context):
            raise ValueError("card declined")

        def test_charge(sfn_emulator):
            sfn_emulator.register("charge", declined)
            sfn_emulator.run(CHARGE, {"amount": 5}).assert_succeeded()
    """)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "E*AssertionError: expected the execution to succeed",
        "E*execution arn:aws:states:us-east-1:*:execution:machine-*: FAILED",
        "E*stopped in state 'Charge' (Task) with input {\"amount\": 5}",
        "E*error: ValueError",
        "E*cause: {\"errorMessage\":\"card declined\",*",
        "E*path: Validate → Charge ✗",
    ])


def test_each_test_has_its_own_account_callables_and_mocks(pytester: pytest.Pytester) -> None:
    result = run_tests(pytester, """
        import pytest
        from botocore.exceptions import ClientError

        MOCKS = {"StateMachines": {"Pay": {"TestCases": {"Paid": {"Charge": "Ok"}}}},
                 "MockedResponses": {"Ok": {"0": {"Return": {"Payload": "mocked"}}}}}

        def test_first(sfn_emulator, sfn_client):
            sfn_emulator.register("charge", lambda event, context: "called")
            sfn_emulator.use_mock_config(MOCKS)
            sfn_emulator.run(CHARGE, name="Pay", test_case="Paid").assert_succeeded(output="mocked")

        def test_second_sees_none_of_it(sfn_emulator, sfn_client):
            assert sfn_client.list_state_machines()["stateMachines"] == []
            sfn_emulator.run(CHARGE, name="Pay").assert_failed(error="Lambda.ResourceNotFoundException")
            with pytest.raises(ClientError, match="no mock configuration is loaded"):
                sfn_emulator.run(CHARGE, name="Pay", test_case="Paid")

        @pytest.mark.sfn_emulator_shared
        def test_shared_one(sfn_emulator):
            sfn_emulator.create_state_machine({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}},
                                              name="kept")

        @pytest.mark.sfn_emulator_shared
        def test_shared_two(sfn_emulator, sfn_client):
            assert sfn_emulator.account == "123456789012"
            assert [m["name"] for m in sfn_client.list_state_machines()["stateMachines"]] == ["kept"]
    """)
    result.assert_outcomes(passed=4)


def test_definition_and_mock_files_are_found_next_to_the_test(pytester: pytest.Pytester) -> None:
    pytester.mkdir("fixtures")
    pytester.path.joinpath("fixtures", "Approve.asl.json").write_text(
        '{"StartAt": "Decide", "States": {"Decide": {"Type": "Task", "Resource": '
        '"arn:aws:states:::lambda:invoke", "Parameters": {"FunctionName": "decide"}, "End": true}}}')
    pytester.path.joinpath("fixtures", "mocks.json").write_text(
        '{"StateMachines": {"Approve": {"TestCases": {"Yes": {"Decide": "Approved"}}}},'
        ' "MockedResponses": {"Approved": {"0": {"Return": {"approved": true}}}}}')
    result = run_tests(pytester, """
        def test_file(sfn_emulator):
            sfn_emulator.use_mock_config("fixtures/mocks.json")
            result = sfn_emulator.run("fixtures/Approve.asl.json", test_case="Yes")
            result.assert_succeeded(output={"approved": True})
    """)
    result.assert_outcomes(passed=1)


def test_the_clock_option_and_the_clock_fixture(pytester: pytest.Pytester) -> None:
    result = run_tests(pytester, """
        WAIT = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 3600, "End": True}}}

        def test_manual(sfn_emulator):
            assert sfn_emulator.clock.mode == "manual"
            waiting = sfn_emulator.run(WAIT)
            assert waiting.stopped_in.name == "W"
            sfn_emulator.clock.advance(3600)
            sfn_emulator.wait(waiting.execution_arn).assert_succeeded()
            sfn_emulator.clock.mode = "auto"

        def test_the_mode_is_put_back(sfn_emulator):
            assert sfn_emulator.clock.mode == "manual"
    """, "--sfn-emulator-clock=manual")
    result.assert_outcomes(passed=2)


def test_in_process_clients_reach_the_emulator_in_the_tests_account(pytester: pytest.Pytester) -> None:
    result = run_tests(pytester, """
        import json
        import boto3

        def create_machine_the_way_application_code_does():
            client = boto3.client("stepfunctions")  # no endpoint_url, no credentials of its own
            definition = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}
            return client.create_state_machine(name="app", definition=json.dumps(definition),
                                               roleArn="arn:aws:iam::123456789012:role/r")["stateMachineArn"]

        def test_in_process(sfn_emulator_inprocess, sfn_client):
            arn = create_machine_the_way_application_code_does()
            assert arn == f"arn:aws:states:us-east-1:{sfn_emulator_inprocess.account}:stateMachine:app"
            assert sfn_emulator_inprocess.run(arn, {"a": 1}).output == {"a": 1}
    """)
    result.assert_outcomes(passed=1)


def test_an_endpoint_option_uses_a_running_server(pytester: pytest.Pytester, emulator_server: Any) -> None:
    result = run_tests(pytester, """
        import pytest

        def test_remote(sfn_emulator, sfn_client):
            assert sfn_emulator.endpoint_url == ENDPOINT
            assert sfn_emulator.run({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}, 1).output == 1
            assert sfn_emulator.clock.mode == "auto"
            assert sfn_emulator.is_remote
            with pytest.raises(RuntimeError, match="cannot register a Lambda callable for 'charge': the emulator at "
                                                   ".* Serve it there with a functions map .*skip_remote=True"):
                sfn_emulator.register("charge", print)

        def test_skipped_when_asked(sfn_emulator):
            sfn_emulator.register("charge", print, skip_remote=True)
            raise AssertionError("not reached")
    """.replace("ENDPOINT", repr(emulator_server.endpoint_url)), f"--sfn-emulator-endpoint={emulator_server.endpoint_url}",
                       "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*'charge' needs a Python callable and the emulator at * runs in another process*"])


def test_an_endpoint_that_does_not_answer_fails_once_at_session_start(pytester: pytest.Pytester) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    pytester.makepyfile(test_user="""
        def test_one(sfn_emulator):
            pass

        def test_two(sfn_emulator):
            pass
    """)
    result = pytester.runpytest_subprocess(*QUIET, f"--sfn-emulator-endpoint=http://127.0.0.1:{port}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if "sfn-emulator" in line]
    assert errors == [f"ERROR: --sfn-emulator-endpoint http://127.0.0.1:{port}: no sfn-emulator answers at "
                      f"http://127.0.0.1:{port}/_emulator/health ([Errno 111] Connection refused); start one "
                      "(sfn-emulator serve) or leave the option out to start one in-process"]
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_each_xdist_worker_has_its_own_server(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user="""
        import os
        import pytest

        @pytest.mark.parametrize("round", range(4))
        def test_worker(sfn_emulator, sfn_client, round):
            sfn_emulator.register("work", lambda event, context: os.environ["PYTEST_XDIST_WORKER"])
            definition = {"StartAt": "T", "States": {"T": {"Type": "Task", "End": True,
                          "Resource": "arn:aws:lambda:us-east-1:123456789012:function:work"}}}
            assert sfn_emulator.run(definition).output == os.environ["PYTEST_XDIST_WORKER"]
    """)
    result = pytester.runpytest_subprocess(*QUIET, "-p", "xdist", "-n", "2")
    result.assert_outcomes(passed=4)


def test_loading_the_plugin_imports_nothing_of_the_emulator() -> None:
    check = ("import sys, sfn_emulator_plugins.pytest_plugin, sfn_emulator_plugins.pytest_coverage; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sfn_emulator', 'boto3', 'botocore', 'flask')))")
    loaded = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_only_a_callable_reads_the_clock_the_test_and_pytest_read_real_time(pytester: pytest.Pytester) -> None:
    result = run_tests(pytester, """
        import threading
        import time
        from datetime import datetime, timedelta, timezone

        SLOW = {"StartAt": "T", "States": {"T": {"Type": "Task", "End": True,
                "Resource": "arn:aws:lambda:us-east-1:123456789012:function:slow"}}}

        def test_clock_time_stays_in_the_callable(sfn_emulator):
            sfn_emulator.clock.set(datetime.now(timezone.utc) + timedelta(days=30 * 366))
            clock_year = sfn_emulator.clock.now().year
            running, polled, polls = threading.Event(), threading.Event(), []

            def slow(event, context):
                running.set()
                assert polled.wait(30)
                return {"year": datetime.now(timezone.utc).year, "time_year": time.gmtime(time.time()).tm_year}

            def poll():
                if running.wait(30):
                    polls.extend((time.time(), time.monotonic()) for _ in range(200))
                polled.set()

            sfn_emulator.register("slow", slow, timeout=60)
            wall, monotonic = time.time(), time.monotonic()
            poller = threading.Thread(target=poll)
            poller.start()
            sfn_emulator.run(SLOW).assert_succeeded(output={"year": clock_year, "time_year": clock_year})
            poller.join(30)
            assert polls and all(wall <= w < wall + 3600 and monotonic <= m < monotonic + 3600 for w, m in polls)
    """, "--sfn-emulator-clock=manual")
    result.assert_outcomes(passed=1)
    [summary] = [line for line in result.outlines if " passed in " in line]
    assert 0 <= float(summary.split(" passed in ")[1].split("s")[0]) < 3600  # pytest's own timing is real
