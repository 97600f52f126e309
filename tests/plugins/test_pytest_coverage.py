"""Workflow coverage in pytest, as a user meets it: `--sfn-coverage` and its report options on small
test suites run by pytest (`pytester`), alone, under pytest-xdist and against a running server."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT

import sfn_emulator.inprocess  # noqa: F401  (imported once: see test_pytest_plugin.py)
import sfn_emulator_plugins.pytest_emulator  # noqa: F401

pytest_plugins = ["pytester"]
SCHEMAS = FIXTURES_ROOT / "plugins" / "schemas"
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


# A machine whose definition names the test's account, as a deployed one names its resources.
ACCOUNT_SUITE = """
def order(account):
    return {"StartAt": "Route", "States": {
        "Route": {"Type": "Choice", "Choices": [
            {"Variable": "$.express", "BooleanEquals": True, "Next": "Express"}], "Default": "Standard"},
        "Express": {"Type": "Pass", "Parameters": {"topic": f"arn:aws:sns:us-east-1:{account}:express"}, "End": True},
        "Standard": {"Type": "Pass", "Parameters": {"topic": f"arn:aws-cn:sns:cn-north-1:{account}:std"}, "End": True}}}

def test_express(sfn_emulator):
    sfn_emulator.run(order(sfn_emulator.account), {"express": True}, name="Order").assert_succeeded()

def test_standard(sfn_emulator):
    sfn_emulator.run(order(sfn_emulator.account), {"express": False}, name="Order").assert_succeeded()
"""
ALL_SHARED = """
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.sfn_emulator_shared)
"""


def _without_text(report: dict[str, Any]) -> dict[str, Any]:
    """A report without the definitions' text, which names the account each ran in."""
    return {**report, "stateMachines": [{k: v for k, v in machine.items() if k != "definition"}
                                        for machine in report["stateMachines"]]}


@pytest.mark.parametrize("workers", [(), ("-p", "xdist", "-n", "2")], ids=["one process", "xdist"])
def test_per_test_accounts_cover_like_one_account(pytester: pytest.Pytester, workers: tuple[str, ...]) -> None:
    pytester.makepyfile(test_orders=textwrap.dedent(ACCOUNT_SUITE))
    own = pytester.runpytest_subprocess(*QUIET, *workers, "--sfn-coverage-json=own.json", "--sfn-coverage-fail-under=100")
    own.assert_outcomes(passed=2)
    assert own.ret == pytest.ExitCode.OK
    pytester.makeconftest(ALL_SHARED)
    shared = pytester.runpytest_subprocess(*QUIET, *workers, "--sfn-coverage-json=shared.json")
    shared.assert_outcomes(passed=2)
    per_test, one_account = (json.loads((pytester.path / name).read_text()) for name in ("own.json", "shared.json"))
    assert [machine["name"] for machine in per_test["stateMachines"]] == ["Order"]
    assert per_test["totals"]["transitions"] == {"total": 4, "covered": 4, "percent": 100.0}
    assert _without_text(per_test) == _without_text(one_account)


def test_per_test_accounts_against_a_running_server(pytester: pytest.Pytester, emulator_server: Any,
                                                    tmp_path: Path) -> None:
    pytester.makepyfile(test_orders=textwrap.dedent(ACCOUNT_SUITE).replace('name="Order"', 'name="RemoteOrder"'))
    result = pytester.runpytest(*QUIET, f"--sfn-emulator-endpoint={emulator_server.endpoint_url}",
                                f"--sfn-coverage-json={tmp_path / 'remote.json'}")
    result.assert_outcomes(passed=2)
    machines = json.loads((tmp_path / "remote.json").read_text())["stateMachines"]
    [remote] = [machine for machine in machines if machine["name"] == "RemoteOrder"]
    assert remote["transitions"]["covered"] == remote["transitions"]["total"] == 4


FILE_SUITE = """
def test_from_a_file(sfn_emulator):
    sfn_emulator.run("flows/order.asl.json", {"express": True}).assert_succeeded()

def test_from_a_dict(sfn_emulator):
    sfn_emulator.run({"StartAt": "Only", "States": {"Only": {"Type": "Pass", "End": True}}},
                     name="Inline").assert_succeeded()
"""
ORDER_FILE = """{
  "Comment": "an order",
  "StartAt": "Route",
  "States": {
    "Route": {
      "Type": "Choice",
      "Choices": [{"Variable": "$.express", "BooleanEquals": true, "Next": "Express"}],
      "Default": "Standard"
    },
    "Express": {"Type": "Pass", "End": true},
    "Standard": {
      "Type": "Pass",
      "End": true
    }
  }
}
"""


def _file_suite(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_flows=textwrap.dedent(FILE_SUITE))
    (pytester.path / "flows").mkdir()
    (pytester.path / "flows" / "order.asl.json").write_text(ORDER_FILE)


def test_cobertura_places_each_state_on_its_line_and_follows_the_dtd(pytester: pytest.Pytester) -> None:
    from lxml import etree

    _file_suite(pytester)
    result = pytester.runpytest(*QUIET, "--sfn-coverage-cobertura=reports/cobertura.xml")
    result.assert_outcomes(passed=2)
    document = etree.parse(str(pytester.path / "reports" / "cobertura.xml"))
    dtd = etree.DTD(str(SCHEMAS / "coverage-04.dtd"))
    assert dtd.validate(document), dtd.error_log.filter_from_errors()
    assert document.findtext("sources/source") == str(pytester.path.resolve())
    classes = {klass.get("name"): klass for klass in document.iter("class")}
    assert classes["order"].get("filename") == "flows/order.asl.json"
    lines = {method.get("name"): dict(method.find("lines/line").attrib) for method in classes["order"].iter("method")}
    assert lines == {
        "Route": {"number": "5", "hits": "1", "branch": "true", "condition-coverage": "50% (2/4)"},
        "Express": {"number": "10", "hits": "1", "branch": "false"},
        "Standard": {"number": "11", "hits": "0", "branch": "false"},
    }
    inline = classes["Inline"].get("filename")
    assert inline.startswith("reports/sfn-coverage-definitions/Inline-")
    assert json.loads((pytester.path / inline).read_text())["StartAt"] == "Only"


def test_sonar_generic_coverage_follows_its_xsd(pytester: pytest.Pytester) -> None:
    from lxml import etree

    _file_suite(pytester)
    pytester.makeini("[pytest]\nsfn_coverage_sonar = sonar.xml\n")
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["Sonar report: sonar.xml"])
    document = etree.parse(str(pytester.path / "sonar.xml"))
    schema = etree.XMLSchema(etree.parse(str(SCHEMAS / "sonar-generic-coverage.xsd")))
    assert schema.validate(document), schema.error_log.filter_from_errors()
    [order] = document.findall("file[@path='flows/order.asl.json']")
    assert [dict(line.attrib) for line in order] == [
        {"lineNumber": "5", "covered": "true", "branchesToCover": "4", "coveredBranches": "2"},
        {"lineNumber": "10", "covered": "true"},
        {"lineNumber": "11", "covered": "false"},
    ]


def test_github_step_summary_matches_the_golden_file(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    _suite(pytester)
    summary = pytester.path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.runpytest(*QUIET, "--sfn-coverage").assert_outcomes(passed=2)
    golden = (FIXTURES_ROOT / "plugins" / "golden" / "coverage-summary.md").read_text()
    assert summary.read_text() == "earlier step\n" + golden


def test_html_index_has_a_total_row(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    pytester.runpytest(*QUIET, "--sfn-coverage-html=html").assert_outcomes(passed=2)
    index = (pytester.path / "html" / "index.html").read_text()
    assert "<tr><th>total</th><th>3/4 (75%)</th><th>4/6 (67%)</th><th>2/3 (67%)</th><th>-</th><th>-</th></tr>" in index
