"""Every case under fixtures/cases/<topic>/*.json, run in-process on a virtual clock.

A case is a definition, an input and what AWS does with them:

    {"comment": "...", "definition": {...}, "input": ...,
     "functions": {"<function name or ARN>": "<behaviour>"},        (engine_harness.behaviour)
     "activities": {"<activity ARN>": "<worker behaviour>" | "no_worker" | "deleted"},
     "s3": {"<bucket>": {"<key>": "<object text>"}},    (in moto's S3, account 111111111111, us-east-1)
     "clock": {"start": "2024-01-01T00:00:00Z", "mode": "auto" | "manual" | "real", "scale": 1.0,
               "advance": [<seconds>, ...]},       (manual mode: moved by hand, in these steps)
     "expect": {"status": "...", "output": ... | "error": "...", "cause": "..." | {...},
                "history": ["ExecutionStarted", ...],
                "timestamps": {"<event id>": "2024-01-02T00:00:00.000Z"}},
     "xfail": "<why the engine does not do what AWS does yet>"}

A JSON `cause` value is compared with the cause text parsed as JSON. Expected strings may hold
the placeholders `<uuid>` and `<trace-id>` (values AWS generates afresh on every run) and `<any>`
(a part of a text the recording does not show).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_harness import DEFAULT_START, Harness, event_types, matches
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.clock.virtual_clock import format_time

CASES_DIR = FIXTURES_ROOT / "cases"
# Topics of other dialects' cases, run by their own tests (tests/dialects/).
OTHER_DIALECTS = frozenset({"serverless_workflow", "sm4c"})


def _load_cases() -> list[Any]:
    params = []
    for path in sorted(CASES_DIR.glob("*/*.json")):
        if path.parent.name in OTHER_DIALECTS:
            continue
        case = json.loads(path.read_text(encoding="utf-8"))
        case_id = f"{path.parent.name}/{path.stem}"
        marks = [pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else []
        params.append(pytest.param(case, id=case_id, marks=marks))
    return params


CASES = _load_cases()


def test_every_topic_has_cases() -> None:
    topics = {param.id.split("/")[0] for param in CASES}
    assert topics >= {"pass", "choice", "wait", "task", "retry_catch", "parallel", "map", "fail",
                      "context_object", "io_processing", "timeouts", "callbacks", "activities", "item_reader",
                      "variables", "jsonata", "limits", "paths"}


def test_cases_that_expect_exact_instants_move_the_clock_by_hand() -> None:
    """An idle auto clock follows the wall clock (docs/clock.md, rule 1): instants are
    reproducible there only relative to the execution's start. A case that names its start instant
    or expects exact timestamps therefore runs on the manual clock, or it depends on how fast the
    machine running it is."""
    offenders = [param.id for param in CASES
                 if ("start" in param.values[0].get("clock", {}) or "timestamps" in param.values[0]["expect"])
                 and param.values[0].get("clock", {}).get("mode", "auto") != "manual"]
    assert offenders == []


@pytest.mark.parametrize("case", CASES)
def test_case(case: dict[str, Any]) -> None:
    clock = case.get("clock", {})
    with Harness(mode=clock.get("mode", "auto"), start=clock.get("start", DEFAULT_START),
                 scale=clock.get("scale", 1.0), functions=case.get("functions"),
                 activities=case.get("activities"), s3=case.get("s3")) as harness:
        execution = harness.start(case["definition"], case.get("input"))
        for seconds in clock.get("advance", []):
            harness.settle()
            harness.clock.advance(seconds)
        harness.finish(execution)

    expect = case["expect"]
    assert execution.status == expect["status"], (execution.error, execution.cause)
    if "output" in expect:
        assert matches(expect["output"], json.loads(execution.output or "null")), execution.output
    if "error" in expect:
        assert execution.error == expect["error"]
    if "cause" in expect:
        expected_cause = expect["cause"]
        actual_cause: Any = execution.cause
        if expected_cause is not None and not isinstance(expected_cause, str):
            actual_cause = json.loads(execution.cause or "null")
        assert matches(expected_cause, actual_cause), execution.cause
    if "history" in expect:
        assert event_types(execution) == expect["history"]
    for event_id, moment in expect.get("timestamps", {}).items():
        assert format_time(execution.history[int(event_id) - 1]["timestamp"]) == moment, f"event {event_id}"
