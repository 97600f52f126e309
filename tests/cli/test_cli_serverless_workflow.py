"""`sfn-emulator validate|run|graph` take Serverless Workflow documents (YAML or JSON files)."""

from __future__ import annotations

import json

WORKFLOW = "examples/fixtures/order.workflow.yaml"
INJECT = "id: hello\nname: Hello\nstates:\n- name: Hello\n  type: inject\n  start: {kind: default}\n  data: {greeting: hi}\n  end: {kind: default}\n"


def test_validate_accepts_a_workflow_and_lists_every_problem_of_a_bad_one(sfn_emulator, tmp_path):
    assert sfn_emulator("validate", WORKFLOW).returncode == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: bad\nname: Bad\nstates:\n- name: A\n  type: delay\n  start: {kind: default}\n  timeDelay: soon\n"
                   "  transition: {nextState: Missing}\n")
    answer = sfn_emulator("validate", "--json", str(bad))
    assert answer.returncode != 0
    codes = {diagnostic["code"] for diagnostic in json.loads(answer.stdout)["diagnostics"]}
    assert codes == {"SCHEMA_VALIDATION_FAILED", "MISSING_TRANSITION_TARGET"}


def test_run_and_graph_a_workflow(sfn_emulator, tmp_path):
    path = tmp_path / "hello.sw.yaml"
    path.write_text(INJECT)
    run = sfn_emulator("run", str(path), "--input", '{"name": "Ann"}', "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["output"] == {"name": "Ann", "greeting": "hi"}
    graph = sfn_emulator("graph", WORKFLOW)
    assert graph.returncode == 0, graph.stderr
    assert all(name in graph.stdout for name in ("Reserve", "AwaitPayment", "CoolingOff", "Ship"))
