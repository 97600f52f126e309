"""Properties of ResultPath over generated inputs, results and reference paths."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from helpers.scopes import FixedScope

from sfn_emulator.asl.errors import RESULT_PATH_MATCH_FAILURE, StatesError
from sfn_emulator.asl.paths import compile_path, compile_result_path

NAMES = ("a", "b", "c")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(NAMES), children, max_size=3),
    max_leaves=15,
)
steps = st.sampled_from(NAMES).map(lambda name: f".{name}") | st.integers(-2, 2).map(lambda index: f"[{index}]")
result_paths = st.lists(steps, max_size=4).map(lambda parts: "$" + "".join(parts))


@settings(max_examples=400, deadline=None)
@given(state_input=json_values, result=json_values, text=result_paths)
def test_apply_never_mutates_and_the_result_reads_back(state_input: Any, result: Any, text: str) -> None:
    before = copy.deepcopy(state_input)
    try:
        output = compile_result_path(text).apply(state_input, result)
    except StatesError as failure:
        assert failure.error == RESULT_PATH_MATCH_FAILURE
        assert failure.cause.startswith(f"Unable to apply ReferencePath {text} to input ")
    else:
        assert compile_path(text).evaluate(output, FixedScope()) == result
    assert state_input == before


@settings(max_examples=200, deadline=None)
@given(state_input=st.dictionaries(st.sampled_from(NAMES), json_values, max_size=3), result=json_values, name=st.sampled_from(NAMES))
def test_a_field_of_an_object_input_always_applies_and_keeps_the_other_fields(
    state_input: dict[str, Any], result: Any, name: str
) -> None:
    output = compile_result_path(f"$.{name}").apply(state_input, result)
    assert output == {**state_input, name: result}
