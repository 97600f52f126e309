"""Payload templates (Parameters, ItemSelector, ResultSelector, ...) in the JSONPath query language.

Table-driven from fixtures/payload/: templates.json (evaluations) and invalid.json
(templates rejected with the definition).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers.scopes import FixedScope

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.payload import TemplateError, compile_template

FIXTURES = FIXTURES_ROOT / "payload"


def load(name: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", load("templates.json"), ids=lambda case: case["name"])
def test_template_case(case: dict[str, Any]) -> None:
    template = compile_template(case["template"])
    scope = FixedScope(case.get("context"), case.get("variables"))
    if "error" in case:
        with pytest.raises(StatesError) as raised:
            template.evaluate(case["input"], scope)
        assert (raised.value.error, raised.value.cause) == (case["error"], case["cause"])
    else:
        result = template.evaluate(case["input"], scope)
        assert json.dumps(result, sort_keys=True) == json.dumps(case["output"], sort_keys=True)


@pytest.mark.parametrize("case", load("invalid.json"), ids=lambda case: case["name"])
def test_invalid_template_is_rejected_naming_the_field_and_where_it_is(case: dict[str, Any]) -> None:
    with pytest.raises(TemplateError) as raised:
        compile_template(case["template"], field=case["field"])
    error = raised.value
    assert (error.key, error.pointer, str(error)) == (case["key"], case["pointer"], case["message"])
    assert isinstance(error, ValueError)


def test_evaluation_builds_new_containers_and_never_changes_the_template_or_input() -> None:
    raw = {"x.$": "$.a", "nested": {"y.$": "$.b", "keep": [1, 2]}, "literal": {"k": [3]}}
    pristine = copy.deepcopy(raw)
    template = compile_template(raw)
    value = {"a": [1], "b": {"c": 2}}
    first = template.evaluate(value, FixedScope())
    second = template.evaluate(value, FixedScope())
    first["nested"]["added"] = True
    assert second == {"x": [1], "nested": {"y": {"c": 2}, "keep": [1, 2]}, "literal": {"k": [3]}}
    assert first is not second and first["nested"] is not second["nested"]
    assert raw == pristine and value == {"a": [1], "b": {"c": 2}}


def test_literal_parts_are_shared_not_copied() -> None:
    literal = {"k": [3]}
    template = compile_template({"x.$": "$", "literal": literal})
    assert template.evaluate({}, FixedScope())["literal"] is literal


# ------------------------------------------------------------------------------------------------
# Property: any template on any JSON input gives a value or a StatesError, nothing else.

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.sampled_from("abc"), children, max_size=3),
    max_leaves=12,
)
dynamic_values = st.sampled_from(
    [
        "$", "$.a", "$.b[0]", "$.a.b.c", "$$.Execution.Input.a", "$$.Nope", "$var", "$var.a",
        "States.Format('{}', $.a)", "States.JsonToString($)", "States.ArrayLength($.a)",
        "States.MathAdd($.a, 1)", "States.StringToJson($.b)", "States.Array($.a, $$.Nope)",
    ]
)
templates = st.recursive(
    json_values,
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "b", "c"]), children, max_size=3)
    | st.dictionaries(st.sampled_from(["x.$", "y.$", "z.$"]), dynamic_values, min_size=1, max_size=2),
    max_leaves=10,
)


@settings(max_examples=300)
@given(template=templates, value=json_values, variable=json_values)
def test_any_template_on_any_input_gives_a_value_or_a_states_error(template: Any, value: Any, variable: Any) -> None:
    compiled = compile_template(template)
    try:
        result = compiled.evaluate(value, FixedScope({"Execution": {"Input": value}}, {"var": variable}))
    except StatesError as error:
        assert error.error == "States.Runtime"
    else:
        json.dumps(result)
