"""`sfn-emulator run DEFINITION`: one execution in-process, its result printed, its status as exit code."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers.paths import FIXTURES_ROOT, REPOSITORY

RUN_CASES = json.loads((FIXTURES_ROOT / "cli" / "run.json").read_text())


@pytest.mark.parametrize("case", RUN_CASES, ids=[case["name"] for case in RUN_CASES])
def test_run(sfn_emulator, case):
    completed = sfn_emulator("run", *case["args"], "--json", stdin=case.get("stdin"), env=case.get("env"))
    assert completed.returncode == case["exit"], completed.stderr
    assert case.get("stderr", "") in completed.stderr
    if "result" in case:
        result = json.loads(completed.stdout)
        assert {key: result[key] for key in case["result"]} == case["result"]
        assert result["executionArn"].startswith("arn:aws:states:us-east-1:123456789012:execution:")
    else:
        assert completed.stdout == ""


def test_the_text_report_names_status_output_and_each_state_with_its_clock_time(sfn_emulator):
    completed = sfn_emulator(
        "run", "fixtures/machines/Greeting.asl.yaml", "--functions", "fixtures/functions/functions.yaml",
        "--input", '{"name": "Ada"}', "--clock", "manual", "--clock-start", "2024-01-01T00:00:00Z",
    )
    assert completed.returncode == 0, completed.stderr
    execution, *report = completed.stdout.splitlines()
    assert execution.startswith("Execution: arn:aws:states:us-east-1:123456789012:execution:Greeting:")
    assert report == [
        "Status:    SUCCEEDED",
        'Output:    {"message": "Hello, Ada!"}',
        "States visited:",
        "  2024-01-01T00:00:00.000Z  Greet",
        "  2024-01-01T00:00:00.000Z  Done",
    ]


def test_the_text_report_of_a_failure_shows_error_and_cause(sfn_emulator):
    completed = sfn_emulator(
        "run", "fixtures/machines/OrderPolling.asl.json", "--mock-config", "fixtures/mocks/OrderPolling.yaml",
        "--test-case", "Rejected", "--account", "111122223333", "--region", "eu-west-1",
    )
    assert completed.returncode == 1, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0].startswith("Execution: arn:aws:states:eu-west-1:111122223333:execution:OrderPolling:")
    assert lines[1:5] == [
        "Status:    FAILED", "Error:     OrderRejected", "Cause:     The order was rejected.", "States visited:"
    ]
    assert [line.split()[-1] for line in lines[5:]] == ["SubmitOrder", "Rejected"]


def test_python_dash_m_emulator_is_the_same_command():
    completed = subprocess.run(
        [sys.executable, "-m", "sfn_emulator", "run", "-", "--json"], cwd=REPOSITORY, capture_output=True, text=True,
        input='{"StartAt": "A", "States": {"A": {"Type": "Pass", "End": true}}}', timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["statesVisited"] == ["A"]


WORKING_FUNCTION = '''
import threading

def work(event, context):
    threading.Event().wait(1)  # a second of real work, under a clock decades away
    return {"done": True}
'''


def test_run_timeout_counts_real_seconds_while_a_callable_runs_under_a_far_clock(sfn_emulator, tmp_path):
    """The command's own thread reads real time while the callable reads the clock's."""
    (tmp_path / "work.py").write_text(WORKING_FUNCTION)
    (tmp_path / "functions.json").write_text(json.dumps({"work": "work.py:work"}))
    definition = tmp_path / "work.asl.json"
    definition.write_text(json.dumps({"StartAt": "Work", "States": {"Work": {
        "Type": "Task", "Resource": "arn:aws:lambda:us-east-1:123456789012:function:work", "End": True}}}))
    completed = sfn_emulator("run", str(definition), "--functions", str(tmp_path / "functions.json"),
                             "--clock-start", "2001-01-01T00:00:00Z", "--timeout", "60", "--json")
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["status"] == "SUCCEEDED"
