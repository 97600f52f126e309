"""Execution graphs over HTTP (`GET /_emulator/graph`), from the CLI (`sfn-emulator graph`,
`sfn-emulator coverage`) and from the Python API (`ExecutionResult.graph`): the path overlay is
exact (states entered with their counts, the state failed in, the edges taken)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

from sfn_emulator import run_definition

ROLE = "arn:aws:iam::123456789012:role/graphs"
LOOP = {"StartAt": "Init", "States": {
    "Init": {"Type": "Pass", "Result": {"i": 0}, "Next": "Loop"},
    "Loop": {"Type": "Pass", "Parameters": {"i.$": "States.MathAdd($.i, 1)"}, "Next": "Check"},
    "Check": {"Type": "Choice", "Choices": [{"Variable": "$.i", "NumericLessThan": 3, "Next": "Loop"}], "Default": "Boom"},
    "Boom": {"Type": "Fail", "Error": "Done", "Cause": "three rounds"},
    "Never": {"Type": "Pass", "End": True}}}
LOOP["States"]["Check"]["Choices"].append({"Variable": "$.never", "IsPresent": True, "Next": "Never"})
FAILED_FILL, VISITED_FILL = "#fbdada", "#d8f0dd"


def _get(endpoint_url: str, query: dict[str, str]) -> tuple[int, str, str]:
    url = f"{endpoint_url}/_emulator/graph?{urllib.parse.urlencode(query)}"
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


@pytest.fixture
def failed_loop(sfn: Any) -> dict[str, str]:
    machine = sfn.create_state_machine(name=f"graph-loop-{uuid.uuid4().hex[:8]}", definition=json.dumps(LOOP), roleArn=ROLE)
    execution_arn = sfn.start_execution(stateMachineArn=machine["stateMachineArn"])["executionArn"]
    deadline = time.monotonic() + 60
    while sfn.describe_execution(executionArn=execution_arn)["status"] == "RUNNING":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return {"stateMachineArn": machine["stateMachineArn"], "executionArn": execution_arn}


def _overlay(text: str) -> tuple[dict[str, str], dict[str, str], set[tuple[str, str]]]:
    """(state name -> its label, state name -> its fill colour, edges drawn thick as (from, to))."""
    nodes = dict(re.findall(r'^\s*(s\d+)\["(.+?)"\]$', text, re.M))
    names = {ident: label.split(" (")[0] for ident, label in nodes.items()}
    fills = {names[ident]: fill for ident, fill in re.findall(r"^  style (s\d+) fill:(#\w+)", text, re.M)}
    edges = re.findall(r"^  (\w+) -(?:-|\.-)>(?:\|\"[^\n]*\"\|)? (\w+)$", text, re.M)
    thick = {edges[int(number)] for number in re.findall(r"^  linkStyle (\d+) ", text, re.M)}
    return ({names[i]: label for i, label in nodes.items()}, fills,
            {(names.get(a, a), names.get(b, b)) for a, b in thick})


def test_an_execution_graph_shows_its_path_with_counts_and_where_it_failed(emulator_server: Any, failed_loop: Any) -> None:
    status, content_type, text = _get(emulator_server.endpoint_url, {"executionArn": failed_loop["executionArn"]})
    assert (status, content_type) == (200, "text/plain; charset=utf-8")
    labels, fills, thick = _overlay(text)
    assert labels["Loop"] == "Loop (Pass) ×3" and labels["Check"] == "Check (Choice) ×3" and labels["Init"] == "Init (Pass)"
    assert fills == {"Init": VISITED_FILL, "Loop": VISITED_FILL, "Check": VISITED_FILL, "Boom": FAILED_FILL}
    assert thick == {("start", "Init"), ("Init", "Loop"), ("Loop", "Check"), ("Check", "Loop"), ("Check", "Boom")}


def test_a_state_machine_graph_has_no_path(emulator_server: Any, failed_loop: Any) -> None:
    for graph_format, content_type in (("mermaid", "text/plain"), ("dot", "text/vnd.graphviz"), ("html", "text/html")):
        status, given_type, text = _get(emulator_server.endpoint_url,
                                        {"stateMachineArn": failed_loop["stateMachineArn"], "format": graph_format})
        assert (status, given_type) == (200, f"{content_type}; charset=utf-8")
        if graph_format == "html":
            text = text.split('<pre class="mermaid">', 1)[1].split("</pre>", 1)[0]
        assert all(name in text for name in LOOP["States"])
        assert "linkStyle" not in text and FAILED_FILL not in text


@pytest.mark.parametrize("query, status, code", [
    ({}, 400, None),
    ({"executionArn": "arn:aws:states:us-east-1:123456789012:execution:nope:nope"}, 404, "ExecutionDoesNotExist"),
    ({"stateMachineArn": "arn:aws:states:us-east-1:123456789012:stateMachine:nope"}, 404, "StateMachineDoesNotExist"),
    ({"stateMachineArn": "not an arn"}, 400, "InvalidArn"),
    ({"stateMachineArn": "arn:aws:states:us-east-1:123456789012:stateMachine:x", "format": "png"}, 400, None),
])
def test_bad_graph_requests_are_answered_with_a_message(emulator_server: Any, query: dict[str, str], status: int,
                                                        code: str | None) -> None:
    given_status, content_type, text = _get(emulator_server.endpoint_url, query)
    body = json.loads(text)
    assert (given_status, content_type, body.get("code")) == (status, "application/json", code)
    assert body["message"]


def _cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sfn_emulator", *arguments], capture_output=True, text=True, timeout=120)


def test_the_cli_draws_an_execution_and_reports_coverage(emulator_server: Any, failed_loop: Any, tmp_path: Path) -> None:
    drawn = _cli("graph", "--endpoint", emulator_server.endpoint_url, "--execution", failed_loop["executionArn"])
    assert drawn.returncode == 0, drawn.stderr
    assert drawn.stdout == _get(emulator_server.endpoint_url, {"executionArn": failed_loop["executionArn"]})[2]

    name = failed_loop["stateMachineArn"].rsplit(":", 1)[-1]
    report = _cli("coverage", "--endpoint", emulator_server.endpoint_url, "--json", str(tmp_path / "c.json"),
                  "--html", str(tmp_path / "html"))
    assert report.returncode == 0, report.stderr
    [row] = [line for line in report.stdout.splitlines() if line.startswith(name)]
    assert row.split()[1:6] == ["4/5", "(80%)", "4/6", "(67%)", "2/3"]
    assert f"{name}: missed states: Never" in report.stdout
    [entry] = [m for m in json.loads((tmp_path / "c.json").read_text())["stateMachines"] if m["name"] == name]
    assert entry["transitions"]["missed"] == [["Check", "Never"], ["Never", None]]
    index = (tmp_path / "html" / "index.html").read_text()
    assert name in index and (tmp_path / "html" / "mermaid.min.js").stat().st_size > 1_000_000


def test_the_cli_draws_a_definition_file_and_refuses_what_it_cannot(tmp_path: Path) -> None:
    source = tmp_path / "loop.asl.json"
    source.write_text(json.dumps(LOOP))
    for graph_format, first_line in (("mermaid", "flowchart TD"), ("dot", "digraph StateMachine {"),
                                     ("html", "<!DOCTYPE html>")):
        drawn = _cli("graph", str(source), "--format", graph_format)
        assert drawn.returncode == 0 and drawn.stdout.splitlines()[0] == first_line
    assert _cli("graph", str(tmp_path / "missing.json")).returncode == 2
    both = _cli("graph", str(source), "--execution", "arn:aws:states:us-east-1:1:execution:a:b", "--endpoint", "http://x")
    assert both.returncode == 2 and "no DEFINITION" in both.stderr
    unreachable = _cli("coverage", "--endpoint", "http://127.0.0.1:9")
    assert unreachable.returncode == 2 and "cannot reach http://127.0.0.1:9" in unreachable.stderr


def test_the_python_api_draws_the_path_of_a_result() -> None:
    result = run_definition(LOOP, {})
    labels, fills, thick = _overlay(result.graph())
    assert labels["Loop"] == "Loop (Pass) ×3" and fills["Boom"] == FAILED_FILL and ("Check", "Boom") in thick
    assert result.graph("dot").startswith("digraph") and "<svg" not in result.graph("html")[:200]


def test_an_execution_page_says_how_it_ended_and_stays_small(emulator_server: Any, failed_loop: Any) -> None:
    """Mermaid (5.5 MB) is loaded from the server, not carried by every page."""
    status, content_type, page = _get(emulator_server.endpoint_url,
                                      {"executionArn": failed_loop["executionArn"], "format": "html"})
    assert (status, content_type) == (200, "text/html; charset=utf-8")
    assert len(page.encode()) < 20_000
    summary = page.split('<pre class="mermaid">', 1)[0]
    assert ('<table class="execution"><tr><th>status</th><td>FAILED</td></tr><tr><th>error</th><td>Done</td></tr>'
            '<tr><th>cause</th><td>three rounds</td></tr></table>') in summary
    assert '<script src="/_emulator/graph/mermaid.min.js"></script>' in page
    with urllib.request.urlopen(f"{emulator_server.endpoint_url}/_emulator/graph/mermaid.min.js", timeout=30) as script:
        assert script.headers["Content-Type"] == "text/javascript; charset=utf-8"
        assert len(script.read()) > 1_000_000


def test_the_cli_saves_an_execution_page_with_mermaid_beside_it(emulator_server: Any, failed_loop: Any,
                                                                 tmp_path: Path) -> None:
    page = tmp_path / "loop.html"
    drawn = _cli("graph", "--endpoint", emulator_server.endpoint_url, "--execution", failed_loop["executionArn"],
                 "--format", "html", "--output", str(page))
    assert drawn.returncode == 0, drawn.stderr
    assert '<script src="mermaid.min.js"></script>' in page.read_text() and page.stat().st_size < 20_000
    assert (tmp_path / "mermaid.min.js").stat().st_size > 1_000_000
