"""HTML graphs and coverage pages rendered in a real headless Chromium, offline: Mermaid (shipped
in the package) turns the text into an SVG that names every state."""

from __future__ import annotations

import json
import re
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from helpers.browser import rendered_dom
from helpers.paths import FIXTURES_ROOT

from sfn_emulator import run_definition
from sfn_emulator.coverage.report import write_html
from sfn_emulator.graphs import graph_of, render

CASES = {case["name"]: case for case in
         json.loads((FIXTURES_ROOT / "graphs" / "structures.json").read_text())["cases"]}


def _svg_text(dom: str) -> str:
    svgs = re.findall(r"<svg.*?</svg>", dom, re.S)
    assert svgs, "no SVG was drawn"
    return " ".join(svgs)


def test_a_definition_page_draws_every_state_branch_and_processor(tmp_path: Path) -> None:
    case = CASES["parallel_and_map_clusters"]
    page = tmp_path / "definition.html"
    page.write_text(render(graph_of(case["definition"]), "html", title=case["name"]), encoding="utf-8")
    svg = _svg_text(rendered_dom(page.as_uri()))
    for name, kind, _cluster in case["nodes"]:
        assert f"{name} ({kind})" in svg
    assert "Branch 1" in svg and "Branch 2" in svg and "Item processor" in svg


def test_an_execution_page_draws_the_path(tmp_path: Path) -> None:
    definition = CASES["choice_catch_retry"]["definition"]
    result = run_definition(definition, {"n": 2, "m": 1})
    page = tmp_path / "execution.html"
    page.write_text(result.graph("html"), encoding="utf-8")
    svg = _svg_text(rendered_dom(page.as_uri()))
    assert all(f"{name} (" in svg for name in definition["States"])


def test_a_page_loading_mermaid_from_beside_it_draws_the_path_and_the_status(tmp_path: Path) -> None:
    from sfn_emulator.graphs.render import MERMAID_SCRIPT, mermaid_script

    definition = CASES["choice_catch_retry"]["definition"]
    result = run_definition(definition, {"n": 2, "m": 1})
    (tmp_path / MERMAID_SCRIPT).write_text(mermaid_script(), encoding="utf-8")
    page = tmp_path / "execution.html"
    page.write_text(result.graph("html", script_src=MERMAID_SCRIPT), encoding="utf-8")
    dom = rendered_dom(page.as_uri())
    assert all(f"{name} (" in _svg_text(dom) for name in definition["States"])
    assert f"<th>status</th><td>{result.status}</td>" in dom


def test_coverage_pages_draw_each_machine(emulator_server: Any, sfn: Any, tmp_path: Path) -> None:
    definition = CASES["choice_catch_retry"]["definition"]
    name = f"browser-coverage-{uuid.uuid4().hex[:8]}"
    machine = sfn.create_state_machine(name=name, definition=json.dumps(definition),
                                       roleArn="arn:aws:iam::123456789012:role/graphs")
    execution_arn = sfn.start_execution(stateMachineArn=machine["stateMachineArn"], input='{"n": 2, "m": 1}')["executionArn"]
    deadline = time.monotonic() + 60
    while sfn.describe_execution(executionArn=execution_arn)["status"] == "RUNNING":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    with urllib.request.urlopen(f"{emulator_server.endpoint_url}/_emulator/coverage", timeout=30) as answer:
        report = json.loads(answer.read())
    report["stateMachines"] = [entry for entry in report["stateMachines"] if entry["name"] == name]
    index = write_html(report, tmp_path)
    assert 'href="machine-1.html"' in index.read_text()
    svg = _svg_text(rendered_dom((tmp_path / "machine-1.html").as_uri()))
    assert all(f"{state} (" in svg for state in definition["States"])


# State names Mermaid would read as its own syntax were they not escaped: a directive (which would
# reconfigure the renderer, here its theme and its security level), a comment, a markdown string.
HOSTILE_NAMES = {
    "directive": '%%{init: {"theme": "forest", "securityLevel": "loose"}}%% Pay',
    "comment": "%% not a comment",
    "leading-backtick": "`Ship",
    "backticks": "`a` and `b`",
    "entity": "#lt;b#gt; & #35;",
}


def test_state_names_of_any_characters_draw_as_written_and_configure_nothing(tmp_path: Path) -> None:
    names = list(HOSTILE_NAMES.values())
    states = {name: {"Type": "Pass", **({"Next": names[i + 1]} if i + 1 < len(names) else {"End": True})}
              for i, name in enumerate(names)}
    page = tmp_path / "hostile.html"
    page.write_text(render(graph_of({"StartAt": names[0], "States": states}), "html", title="hostile"), encoding="utf-8")
    svg = _svg_text(rendered_dom(page.as_uri()))
    text = re.sub(r"<[^>]+>", "", svg).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
    for name in names:
        assert f"{name} (Pass)" in text, name
    assert "#cde498" not in svg  # the forest theme's node colour: the directive was not applied
