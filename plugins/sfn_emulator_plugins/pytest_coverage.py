"""Workflow coverage for a pytest session (registered through its own `pytest11` entry point).

`--sfn-coverage` reads, at the end of the session, the coverage of every execution the session's
emulator finished (in-process, or at `--sfn-emulator-endpoint`), merges the reports of
pytest-xdist workers on the controller, prints a table of covered/total per state machine, and:
- `--sfn-coverage-json PATH` writes the JSON report (`sfn_emulator.coverage.model`);
- `--sfn-coverage-html DIR` writes a page per state machine with its graph coloured by coverage;
- `--sfn-coverage-cobertura PATH` writes Cobertura XML, `--sfn-coverage-sonar PATH` SonarQube's
  generic coverage XML: each state a line of the definition file it came from (path relative to the
  project root); definitions that came from no file are written beside the report first;
- `--sfn-coverage-fail-under PERCENT` fails the session when transition coverage is lower;
- when `$GITHUB_STEP_SUMMARY` names a file, a Markdown summary is appended to it.
Each has an ini key of the same name with underscores (`sfn_coverage = true`, ...). Any of the
report options turns coverage on by itself. A machine is identified by its name and its content,
wherever it ran (see `sfn_emulator.coverage.recorder.definition_id`), so the per-test accounts of
the fixtures add up to one row per machine.
"""

from __future__ import annotations

import json
import os
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
    group.addoption("--sfn-coverage-cobertura", metavar="PATH",
                    help="write the coverage as Cobertura XML [ini sfn_coverage_cobertura]")
    group.addoption("--sfn-coverage-sonar", metavar="PATH",
                    help="write the coverage in SonarQube's generic coverage format [ini sfn_coverage_sonar]")
    group.addoption("--sfn-coverage-fail-under", metavar="PERCENT", type=float,
                    help="fail when transition coverage is below PERCENT [ini sfn_coverage_fail_under]")
    parser.addini("sfn_coverage", "measure workflow coverage", type="bool", default=False)
    parser.addini("sfn_coverage_json", "path of the JSON coverage report", default="")
    parser.addini("sfn_coverage_html", "folder of the HTML coverage pages", default="")
    parser.addini("sfn_coverage_cobertura", "path of the Cobertura XML coverage report", default="")
    parser.addini("sfn_coverage_sonar", "path of the SonarQube generic coverage report", default="")
    parser.addini("sfn_coverage_fail_under", "minimum transition coverage in percent", default="")


def _option(config: pytest.Config, name: str) -> Any:
    given = config.getoption(f"--{name.replace('_', '-')}")
    return given if given is not None else (config.getini(name) or None)


REPORT_OPTIONS = ("sfn_coverage_json", "sfn_coverage_html", "sfn_coverage_cobertura", "sfn_coverage_sonar")
DEFINITIONS_FOLDER = "sfn-coverage-definitions"  # beside a line report: the definitions that came from no file


def _enabled(config: pytest.Config) -> bool:
    return any(_option(config, name) for name in ("sfn_coverage", *REPORT_OPTIONS, "sfn_coverage_fail_under"))


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
    for option, writer in (("sfn_coverage_cobertura", _write_cobertura), ("sfn_coverage_sonar", _write_sonar)):
        path = _option(config, option)
        if path:
            writer(report, Path(path), config.rootpath)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        from sfn_emulator.coverage.report import markdown

        with open(summary, "a", encoding="utf-8") as file:
            file.write(markdown(report))
    minimum = _option(config, "sfn_coverage_fail_under")
    if minimum is not None and report["totals"]["transitions"]["percent"] < float(minimum):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _placed(report: dict[str, Any], path: Path, root: Path) -> list[Any]:
    """Each machine with the definition file shown for it: its own file, else one written beside `path`."""
    from sfn_emulator.coverage.ci_formats import PlacedMachine
    from sfn_emulator.coverage.lines import pretty_definition

    placed = []
    for machine in report["stateMachines"]:
        source = Path(machine["source"]) if machine.get("source") else None
        if source is None or not source.is_file():
            source = path.resolve().parent / DEFINITIONS_FOLDER / f"{machine['name']}-{machine['definitionId']}.json"
            source.parent.mkdir(parents=True, exist_ok=True)
            source.write_text(pretty_definition(machine["definition"]), encoding="utf-8")
        try:
            shown = source.relative_to(root.resolve()).as_posix()
        except ValueError:  # outside the project: its absolute path
            shown = source.as_posix()
        placed.append(PlacedMachine(machine, shown, source.read_text(encoding="utf-8")))
    return placed


def _write_cobertura(report: dict[str, Any], path: Path, root: Path) -> None:
    from sfn_emulator.coverage.ci_formats import cobertura_xml

    path.write_text(cobertura_xml(_placed(report, path, root), str(root.resolve())), encoding="utf-8")


def _write_sonar(report: dict[str, Any], path: Path, root: Path) -> None:
    from sfn_emulator.coverage.ci_formats import sonar_xml

    path.write_text(sonar_xml(_placed(report, path, root)), encoding="utf-8")


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
    for option, label in (("sfn_coverage_json", "JSON report"), ("sfn_coverage_html", "HTML report"),
                          ("sfn_coverage_cobertura", "Cobertura report"), ("sfn_coverage_sonar", "Sonar report")):
        where = _option(config, option)
        if where:
            terminalreporter.write_line(f"{label}: {where}")
    minimum = _option(config, "sfn_coverage_fail_under")
    if minimum is not None:
        percent = report["totals"]["transitions"]["percent"]
        verdict = "FAIL" if percent < float(minimum) else "ok"
        terminalreporter.write_line(f"transition coverage {percent}% (required {float(minimum)}%): {verdict}")
