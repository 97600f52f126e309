"""SM4C documents read into the model: the diagnostics of fixtures/cases/sm4c/invalid_*.json, every
valid case of the topic accepted, durations in both of SM4C's forms, jq compiled once."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from sfn_emulator.asl.validation import InvalidDefinitionError
from sfn_emulator.dialects.sm4c.expressions import compile_expression, compile_template
from sfn_emulator.dialects.sm4c.interpreter import retry_delay
from sfn_emulator.dialects.sm4c.model import RetryPolicy
from sfn_emulator.dialects.sm4c.parser import parse_document, validate_document
from sfn_emulator.dialects.sm4c.timespans import parse_timespan

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from engine_harness import matches  # noqa: E402 - the placeholders of the case corpus

CASES_DIR = FIXTURES_ROOT / "cases" / "sm4c"


def _cases(diagnostics: bool) -> list[Any]:
    found = []
    for path in sorted(CASES_DIR.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        if ("diagnostics" in case["expect"]) == diagnostics:
            found.append(pytest.param(case, id=path.stem))
    return found


def definition_text(case: dict[str, Any]) -> str:
    definition = case["definition"]
    return definition if isinstance(definition, str) else json.dumps(definition)


@pytest.mark.parametrize("case", _cases(diagnostics=True))
def test_bad_documents_report_every_problem(case: dict[str, Any]) -> None:
    diagnostics = [diagnostic.to_api() for diagnostic in validate_document(definition_text(case))]
    assert matches(case["expect"]["diagnostics"], diagnostics), diagnostics
    with pytest.raises(InvalidDefinitionError) as refused:
        parse_document(definition_text(case))
    assert refused.value.message.startswith("Invalid State Machine Definition: '")


@pytest.mark.parametrize("case", _cases(diagnostics=False))
def test_runnable_documents_are_valid(case: dict[str, Any]) -> None:
    assert validate_document(definition_text(case)) == []
    for subflow in case.get("subflows", {}).values():
        assert validate_document(json.dumps(subflow)) == []


def test_unreadable_text_is_an_invalid_json_description() -> None:
    [diagnostic] = validate_document("{ not: [json")
    assert diagnostic.code == "INVALID_JSON_DESCRIPTION"


@pytest.mark.parametrize(("text", "seconds"), [
    ("00:00:10", 10.0), ("01:02:03", 3723.0), ("2.00:00:01", 172801.0), ("00:00:01.25", 1.25), ("3", 259200.0),
    ("PT10S", 10.0), ("PT1M30S", 90.0), ("P1DT1H", 90000.0), ("PT0.5S", 0.5),
    ("ten", None), ("PT", None), ("P1DT", None), ("-00:00:01", None), ("00:60:00", None),
])
def test_timespans_in_both_forms(text: str, seconds: float | None) -> None:
    assert parse_timespan(text) == seconds


def test_expressions_with_and_without_their_wrapper_and_bound_value() -> None:
    assert compile_expression("${ .a += $value }").evaluate({"a": 1}, 2) == {"a": 3}
    assert compile_expression(".a + ($rhs | length)").evaluate({"a": 1}, [0, 0]) == 3
    assert compile_expression("${ empty }").evaluate({}) is None
    assert compile_expression("${ .x }").holds({"x": 0}) is True  # jq's truth: only false and null are false
    assert compile_expression("${ .x }").holds({"x": False}) is False


def test_templates_evaluate_only_wrapped_strings() -> None:
    template = compile_template({"order": "${ .orders[1] }", "literal": ".orders", "nested": [{"n": "${ .n }"}], "k": 3})
    assert template.evaluate({"orders": [1, 2], "n": 5}) == {"order": 2, "literal": ".orders", "nested": [{"n": 5}], "k": 3}


@pytest.mark.parametrize(("policy", "delays"), [
    (RetryPolicy("fixed", 3, delay=2.0), [2.0, 2.0, 2.0]),
    (RetryPolicy("increment", 3, delay=2.0, increment=1.0), [2.0, 3.0, 4.0]),
    (RetryPolicy("multiplier", 3, delay=2.0, multiplier=3.0), [2.0, 6.0, 18.0]),
    (RetryPolicy("capped", 3, delay=2.0, multiplier=3.0, max_delay=5.0), [2.0, 5.0, 5.0]),
])
def test_retry_delays(policy: RetryPolicy, delays: list[float]) -> None:
    import random

    assert [retry_delay(policy, attempt, random.Random(0)) for attempt in (1, 2, 3)] == delays


def test_jitter_stays_within_its_spread() -> None:
    import random

    source = random.Random(7)
    policy = RetryPolicy("jittered", 1, delay=10.0, jitter=0.1)
    assert all(9.0 <= retry_delay(policy, 1, source) <= 11.0 for _ in range(50))


_KEYS = st.sampled_from(["name", "version", "states", "start", "transitions", "nextState", "condition", "eventGroups",
                         "events", "timeout", "enterAction", "exitAction", "type", "expression", "functionName",
                         "functions", "retries", "maxAttempts", "actions", "input", "action", "enterResultHandler"])
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(
    ["A", "B", "injectData", "delay", "sequence", "foreach", "${ .a }", "${ .a + }", "PT1S", "00:00:01", "x"]))
_JSON = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
                     max_leaves=25)


@settings(max_examples=200, deadline=None)
@given(_JSON)
def test_any_document_is_a_model_or_diagnostics(document: Any) -> None:
    """Whatever JSON a document holds, reading it gives a model or InvalidDefinitionError, nothing else."""
    text = json.dumps(document)
    try:
        parse_document(text)
    except InvalidDefinitionError as refused:
        assert refused.diagnostics
    assert isinstance(validate_document(text), list)
