"""A trace taken a few events at a time, as the console follows a running execution, is the trace of
the whole history read at once, after every step: for the coverage cases' machines and inputs
(Choice rules, Retry and Catch, Map and Parallel), with the interpreter's notes and without them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.config import Settings
from sfn_emulator.dialects import graph_of
from sfn_emulator.graphs import Tracer, trace
from sfn_emulator.runtime import Emulator

CASES = sorted((FIXTURES_ROOT / "coverage").glob("*.json"))
ACCOUNT, REGION = "123456789012", "us-east-1"


def _executions(case: dict[str, Any]) -> list[Any]:
    with Emulator(Settings()) as emulator:
        service = emulator.service
        machine = service.handle("CreateStateMachine", {"name": "traced", "roleArn": f"arn:aws:iam::{ACCOUNT}:role/r",
                                                        "definition": json.dumps(case["definition"])},
                                 account=ACCOUNT, region=REGION)
        arns = [service.handle("StartExecution", {"stateMachineArn": machine["stateMachineArn"],
                                                  "input": json.dumps(given)}, account=ACCOUNT, region=REGION)
                ["executionArn"] for given in case["inputs"]]
        emulator.engine.run_until_idle()
        return [service.execution_record(arn) for arn in arns]


@pytest.mark.parametrize("with_notes", [True, False], ids=["noted", "history-only"])
@pytest.mark.parametrize("step", [1, 3, 7])
@pytest.mark.parametrize("case_file", CASES, ids=[case.stem for case in CASES])
def test_a_trace_followed_step_by_step_is_the_trace_of_the_history_so_far(case_file: Path, step: int,
                                                                           with_notes: bool) -> None:
    for execution in _executions(json.loads(case_file.read_text())):
        graph = graph_of(execution.definition)
        notes = execution.rules_taken if with_notes else None
        tracer = Tracer(graph, notes)
        history = list(execution.history)
        for end in range(step, len(history) + step, step):
            tracer.follow(history[tracer.events_followed:end])
            assert tracer.trace() == trace(graph, history[:end], notes), (execution.name, end)
        assert tracer.events_followed == len(history)
