"""The Python API: `run_definition` runs a definition in-process and returns the execution, and
`ExecutionResult` explains how it ended, in assertion messages a test author can act on."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT

from sfn_emulator import ExecutionResult, run_definition
from sfn_emulator.config import Settings

MACHINES = FIXTURES_ROOT / "machines"
MOCKS = FIXTURES_ROOT / "mocks"
START = datetime(2024, 1, 1, tzinfo=timezone.utc)

CHARGE = {
    "StartAt": "Validate",
    "States": {
        "Validate": {"Type": "Pass", "Next": "Charge"},
        "Charge": {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:123456789012:function:charge", "End": True},
    },
}


def declined(event: Any, context: Any) -> Any:
    raise PermissionError(f"card {event['card']} declined")


def test_a_definition_runs_with_python_callables_as_lambda_functions() -> None:
    result = run_definition(CHARGE, {"card": "4242"}, functions={"charge": lambda event, context: {"paid": True}})
    assert (result.status, result.output) == ("SUCCEEDED", {"paid": True})
    assert result.input == {"card": "4242"}
    assert result.visited_states == ["Validate", "Charge"]
    assert [visit.type for visit in result.visits] == ["Pass", "Task"]
    assert result.history[0]["type"] == "ExecutionStarted"
    assert result.stopped_in is None


def test_a_failed_execution_names_the_state_it_failed_in_with_its_input() -> None:
    result = run_definition(CHARGE, {"card": "0000"}, functions={"charge": declined})
    assert (result.status, result.error) == ("FAILED", "PermissionError")
    assert '"errorMessage": "card 0000 declined"' in result.cause
    assert (result.stopped_in.name, result.stopped_in.type, result.stopped_in.input) == (
        "Charge", "Task", {"card": "0000"})


def test_assert_succeeded_shows_the_failing_state_its_input_and_the_error() -> None:
    result = run_definition(CHARGE, {"card": "0000"}, functions={"charge": declined})
    with pytest.raises(AssertionError) as failure:
        result.assert_succeeded()
    message = str(failure.value)
    assert message.startswith(f"expected the execution to succeed\nexecution {result.execution_arn}: FAILED\n")
    assert "  stopped in state 'Charge' (Task) with input {\"card\": \"0000\"}\n  error: PermissionError\n" in message
    assert message.endswith("path: Validate → Charge ✗")


def test_assertions_pass_on_what_they_expect_and_compare_output_error_and_cause() -> None:
    failed = run_definition({"StartAt": "F", "States": {"F": {"Type": "Fail", "Error": "E", "Cause": "C"}}})
    assert failed.assert_failed(error="E", cause="C") is failed
    with pytest.raises(AssertionError, match="expected the execution to fail with error 'Other'"):
        failed.assert_failed(error="Other")
    succeeded = run_definition({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}, [1, 2])
    succeeded.assert_succeeded(output=[1, 2]).assert_status("SUCCEEDED")
    with pytest.raises(AssertionError, match=r"another output than expected:\n  \$\[0\]: expected 3, got 1\n"
                                             r"  \$\[1\]: not expected \(got 2\)\n"):
        succeeded.assert_succeeded(output=[3])


def test_an_execution_that_waits_for_someone_is_returned_running_where_it_waits() -> None:
    result = run_definition(MACHINES / "AwaitCallback.asl.json", {"ticket": 7},
                            functions={"hold": lambda event, context: None})
    result.assert_status("RUNNING")
    with pytest.raises(AssertionError, match=r"RUNNING\n  waiting in state 'AwaitApproval' \(Task\)"):
        result.assert_succeeded()


def test_the_clock_skips_waits_and_settings_choose_where_time_starts() -> None:
    day = {"StartAt": "Day", "States": {"Day": {"Type": "Wait", "Seconds": 86_400, "End": True}}}
    result = run_definition(day, settings=Settings(clock_start=START))
    entered, exited = (event["timestamp"] for event in result.history if event["type"].startswith("WaitState"))
    assert (result.start_date.date(), exited - entered) == (START.date(), timedelta(days=1))


def test_a_manual_clock_leaves_a_wait_waiting() -> None:
    day = {"StartAt": "Day", "States": {"Day": {"Type": "Wait", "Seconds": 86_400, "End": True}}}
    assert run_definition(day, settings=Settings(clock="manual")).stopped_in.name == "Day"


def test_a_definition_file_names_the_machine_for_a_mock_configuration() -> None:
    result = run_definition(MACHINES / "OrderPolling.asl.json", {"item": "book"},
                            mock_config=MOCKS / "OrderPolling.yaml", test_case="ShipsOnThirdCheck")
    result.assert_succeeded()
    assert result.visited_states.count("CheckStatus") == 3


def test_a_mock_configuration_can_be_a_dict() -> None:
    machine = {"StartAt": "Ask", "States": {"Ask": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                                                    "Parameters": {"FunctionName": "ask"}, "End": True}}}
    mocks = {"StateMachines": {"Asking": {"TestCases": {"No": {"Ask": "Refusal"}}}},
             "MockedResponses": {"Refusal": {"0": {"Throw": {"Error": "Refused", "Cause": "no"}}}}}
    result = run_definition(machine, name="Asking", mock_config=mocks, test_case="No")
    result.assert_failed(error="Refused", cause="no")


def test_a_mock_configuration_given_as_a_dict_is_named_so_in_its_errors() -> None:
    """Not by the file it was written to, which the user never saw."""
    from sfn_emulator.resources.mock_file import MockConfigError

    with pytest.raises(MockConfigError) as refused:
        run_definition(CHARGE, mock_config={"StateMachines": {"Charging": {"TestCases": {"Paid": {"Charge": 7}}}}},
                       test_case="Paid")
    assert str(refused.value).startswith("mock config given as a dict: ")


def test_yaml_files_and_json_text_are_definitions_too() -> None:
    greeting = run_definition(MACHINES / "Greeting.asl.yaml", {"name": "Ada"},
                              functions={"greet": lambda event, context: {"greeting": f"Hi {event['name']}"}})
    assert greeting.output == {"message": "Hi Ada!"}
    text = '{"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": 1, "End": true}}}'
    assert run_definition(text).output == 1


def test_an_express_machine_runs_synchronously_without_history() -> None:
    result = run_definition({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}, {"a": 1},
                            type="EXPRESS")
    assert (result.status, result.output, result.history) == ("SUCCEEDED", {"a": 1}, ())
    assert ":express:" in result.execution_arn


def test_a_definition_the_api_refuses_raises_its_error() -> None:
    from sfn_emulator.service.errors import InvalidDefinition

    with pytest.raises(InvalidDefinition, match="MISSING_TRANSITION_TARGET"):
        run_definition({"StartAt": "Nowhere", "States": {"A": {"Type": "Pass", "End": True}}})


def test_the_result_type_is_exported_and_its_repr_is_short() -> None:
    result = run_definition({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    assert isinstance(result, ExecutionResult)
    assert repr(result) == "ExecutionResult(status='SUCCEEDED', error=None, output={}, visited_states=['P'])"


LONG_MAP = {"StartAt": "Each", "States": {"Each": {
    "Type": "Map", "ItemProcessor": {"StartAt": "Keep", "States": {"Keep": {"Type": "Pass", "End": True}}},
    "End": True}}}


@pytest.mark.parametrize("items", [0, 300])  # 4 and over 1,200 events: one page and several
def test_an_in_process_runner_reads_the_history_whole_as_paging_the_api_would(items: int) -> None:
    from sfn_emulator.api import ExecutionRunner, in_process_runner
    from sfn_emulator.runtime import Emulator

    with Emulator(Settings(clock_start=START)) as instance:
        whole = in_process_runner(instance, role_arn="arn:aws:iam::123456789012:role/r")
        paged = ExecutionRunner(instance.service, instance.clock, role_arn="arn:aws:iam::123456789012:role/r")
        result = whole.run(LONG_MAP, list(range(items)))
        assert result.succeeded and len(result.history) == 4 * items + 6
        assert result == paged.result(result.execution_arn)
