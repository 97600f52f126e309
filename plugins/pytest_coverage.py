"""Workflow coverage for a pytest session (registered through its own `pytest11` entry point).

`--sfn-coverage` reads, at the end of the session, the coverage of every execution the session's
emulator finished (in-process, or at `--sfn-emulator-endpoint`), merges the reports of
pytest-xdist workers on the controller, prints a table of covered/total per state machine, and:
- `--sfn-coverage-json PATH` writes the JSON report (`sfn_emulator.coverage.model`);
- `--sfn-coverage-html DIR` writes a page per state machine with its graph coloured by coverage;
- `--sfn-coverage-fail-under PERCENT` fails the session when transition coverage is lower.
Each has an ini key of the same name with underscores (`sfn_coverage = true`, ...). Any of the
last three turns coverage on by itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sfn_emulator_plugins.pytest_plugin import SESSION_EMULATORS

WORKER_KEY = "sfn_coverage"
_WORKER_REPORTS = pytest.StashKey[list]()
_REPORT = pytest.StashKey[dict]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("sfn-emulator")
    group.addoption("--sfn-coverage", action="store_true", default=None,
                    help="measure which states, transitions, Choice rules, Catchers and Retriers the tests ran "
                         "[ini sfn_coverage]")
    group.addoption("--sfn-coverage-json", metavar="PATH", help="write the coverage report as JSON [ini sfn_coverage_json]")
    group.addoption("--sfn-coverage-html", metavar="DIR",
                    help="write HTML coverage pages with each state machine's graph [ini sfn_coverage_html]")
    group.addoption("--sfn-coverage-fail-under", metavar="PERCENT", type=float,
                    help="fail when transition coverage is below PERCENT [ini sfn_coverage_fail_under]")
    parser.addini("sfn_coverage", "measure workflow coverage", type="bool", default=False)
    parser.addini("sfn_coverage_json", "path of the JSON coverage report", default="")
    parser.addini("sfn_coverage_html", "folder of the HTML coverage pages", default="")
    parser.addini("sfn_coverage_fail_under", "minimum transition coverage in percent", default="")


def _option(config: pytest.Config, name: str) -> Any:
    given = config.getoption(f"--{name.replace('_', '-')}")
    return given if given is not None else (config.getini(name) or None)


def _enabled(config: pytest.Config) -> bool:
    return bool(_option(config, "sfn_coverage") or _option(config, "sfn_coverage_json")
                or _option(config, "sfn_coverage_html") or _option(config, "sfn_coverage_fail_under"))


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_WORKER_REPORTS] = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the xdist controller: keep what a worker measured."""
    report = getattr(node, "workeroutput", {}).get(WORKER_KEY)
    if report is not None:
        node.config.stash[_WORKER_REPORTS].append(report)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if not _enabled(config):
        return
    from sfn_emulator.coverage.model import merge_reports

    own = [emulator.coverage_json() for emulator in config.stash.get(SESSION_EMULATORS, [])]
    if hasattr(config, "workerinput"):  # an xdist worker: the controller reports
        config.workeroutput[WORKER_KEY] = merge_reports(own)  # type: ignore[attr-defined]
        return
    report = merge_reports(own + config.stash[_WORKER_REPORTS])
    config.stash[_REPORT] = report
    json_path = _option(config, "sfn_coverage_json")
    if json_path:
        Path(json_path).write_text(json.dumps(report, indent=2), encoding="utf-8")
    html_dir = _option(config, "sfn_coverage_html")
    if html_dir:
        from sfn_emulator.coverage.report import write_html

        write_html(report, html_dir)
    minimum = _option(config, "sfn_coverage_fail_under")
    if minimum is not None and report["totals"]["transitions"]["percent"] < float(minimum):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    report = config.stash.get(_REPORT, None)
    if report is None:
        return
    from sfn_emulator.coverage.report import table

    terminalreporter.section("Step Functions workflow coverage")
    if not report["stateMachines"]:
        terminalreporter.write_line("no state machine was executed")
    else:
        terminalreporter.write(table(report))
    for option, label in (("sfn_coverage_json", "JSON report"), ("sfn_coverage_html", "HTML report")):
        where = _option(config, option)
        if where:
            terminalreporter.write_line(f"{label}: {where}")
    minimum = _option(config, "sfn_coverage_fail_under")
    if minimum is not None:
        percent = report["totals"]["transitions"]["percent"]
        verdict = "FAIL" if percent < float(minimum) else "ok"
        terminalreporter.write_line(f"transition coverage {percent}% (required {float(minimum)}%): {verdict}")
