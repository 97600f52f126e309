"""What a JSONata expression that raises fails with (fixtures/jsonata/function_errors.json)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from helpers.scopes import FixedScope

from sfn_emulator.asl.errors import QUERY_EVALUATION_ERROR
from sfn_emulator.asl.jsonata_expressions import QueryEvaluationError, compile_jsonata

TABLE = json.loads((FIXTURES_ROOT / "jsonata" / "function_errors.json").read_text())
STATES = {"input": {"total": 10}}


class ClockedScope(FixedScope):
    def now(self) -> datetime:
        return datetime(2024, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("case", TABLE["cases"], ids=[case["expression"] for case in TABLE["cases"]])
def test_an_error_raised_while_evaluating_names_its_code_and_message(case: dict[str, Any]) -> None:
    expression = compile_jsonata("{% " + case["expression"] + " %}", "Output/total")

    with pytest.raises(QueryEvaluationError) as raised:
        expression.evaluate(STATES, ClockedScope())

    assert raised.value.error == QUERY_EVALUATION_ERROR
    assert raised.value.cause == (f"The JSONata expression '{case['expression']}' specified for the field 'Output/total' "
                                  f"threw an error during evaluation. {case['error']}")
    assert raised.value.location == "Output/total"


@pytest.mark.parametrize("text", TABLE["undefined"])
def test_a_result_that_is_not_a_number_is_nothing(text: str) -> None:
    """NaN (0/0, x%0) is no JSON number: the expression gives nothing, as a missing value does."""
    expression = compile_jsonata("{% " + text + " %}", "Output")

    with pytest.raises(QueryEvaluationError) as raised:
        expression.evaluate(STATES, ClockedScope())

    assert raised.value.cause == f"The JSONata expression '{text}' specified for the field 'Output' returned nothing (undefined)."


@pytest.mark.parametrize("case", TABLE["values"], ids=[case["expression"] for case in TABLE["values"]])
def test_finite_arithmetic_gives_its_number(case: dict[str, Any]) -> None:
    assert compile_jsonata("{% " + case["expression"] + " %}", "Output").evaluate(STATES, ClockedScope()) == case["value"]
