"""Workflow coverage in pytest, as a user meets it: `--sfn-coverage` and its report options on small
test suites run by pytest (`pytester`), alone, under pytest-xdist and against a running server."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

import sfn_emulator.inprocess  # noqa: F401  (imported once: see test_pytest_plugin.py)
import sfn_emulator_plugins.pytest_emulator  # noqa: F401

pytest_plugins = ["pytester"]
QUIET = ("-p", "no:hypothesispytest", "-p", "no:cacheprovider", "-p", "no:randomly")

SUITE = """
ORDER = {"StartAt": "Route", "States": {
    "Route": {"Type": "Choice", "Choices": [
        {"Variable": "$.express", "BooleanEquals": True, "Next": "Express"},
        {"Variable": "$.gift", "BooleanEquals": True, "Next": "Gift"}], "Default": "Standard"},
    "Express": {"Type": "Pass", "End": True},
    "Gift": {"Type": "Pass", "End": True},
    "Standard": {"Type": "Pass", "End": True}}}

def test_express(sfn_emulator):
    sfn_emulator.run(ORDER, {"express": True, "gift": False}, name="Order").assert_succeeded()

def test_standard(sfn_emulator):
    sfn_emulator.run(ORDER, {"express": False, "gift": False}, name="Order").assert_succeeded()
"""


def _suite(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_orders=textwrap.dedent(SUITE))


def test_the_table_names_what_the_suite_missed(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    result = pytester.runpytest(*QUIET, "--sfn-coverage")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([
        "*Step Functions workflow coverage*",
        "state machine*states*transitions*choice rules*catchers*retriers",
        "Order*3/4 (75%)*4/6 (67%)*2/3 (67%)*-*-",
        "*Order: missed states: Gift",
        "*Order: missed transitions: Route → Gift, Gift → (end)",
        "*Order: missed choice rules: Route.Choices[[]1]",
    ])


def test_json_html_and_fail_under(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    result = pytester.runpytest(*QUIET, "--sfn-coverage-json=coverage.json", "--sfn-coverage-html=html",
                                "--sfn-coverage-fail-under=90")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*transition coverage 66.7% (required 90.0%): FAIL"])
    report = json.loads((pytester.path / "coverage.json").read_text())
    [order] = report["stateMachines"]
    assert order["transitions"] == {"total": 6, "covered": 4, "missed": [["Route", "Gift"], ["Gift", None]]}
    assert report["totals"]["transitions"] == {"total": 6, "covered": 4, "percent": 66.7}
    assert (pytester.path / "html" / "index.html").exists() and (pytester.path / "html" / "machine-1.html").exists()

    passing = pytester.runpytest(*QUIET, "--sfn-coverage-fail-under=60")
    assert passing.ret == pytest.ExitCode.OK


def test_ini_options(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    pytester.makeini("[pytest]\nsfn_coverage = true\nsfn_coverage_json = from-ini.json\n")
    result = pytester.runpytest(*QUIET)
    result.stdout.fnmatch_lines(["*Step Functions workflow coverage*", "JSON report: from-ini.json"])
    assert json.loads((pytester.path / "from-ini.json").read_text())["totals"]["states"]["covered"] == 3


def test_xdist_workers_add_up(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    result = pytester.runpytest_subprocess(*QUIET, "-p", "xdist", "-n", "2", "--sfn-coverage-json=coverage.json")
    result.assert_outcomes(passed=2)
    [order] = json.loads((pytester.path / "coverage.json").read_text())["stateMachines"]
    assert order["states"] == {"total": 4, "covered": 3, "missed": ["Gift"]}


def test_against_a_running_server(pytester: pytest.Pytester, emulator_server: Any, tmp_path: Path) -> None:
    _suite(pytester)
    result = pytester.runpytest(*QUIET, f"--sfn-emulator-endpoint={emulator_server.endpoint_url}",
                                f"--sfn-coverage-json={tmp_path / 'remote.json'}")
    result.assert_outcomes(passed=2)
    machines = json.loads((tmp_path / "remote.json").read_text())["stateMachines"]
    assert {"Order"} <= {machine["name"] for machine in machines}


def test_no_executions_no_numbers(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest(*QUIET, "--sfn-coverage")
    result.stdout.fnmatch_lines(["*Step Functions workflow coverage*", "no state machine was executed"])
