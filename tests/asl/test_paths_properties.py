"""Properties of path evaluation over generated JSON and generated paths."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from helpers.scopes import FixedScope

from sfn_emulator.asl.jsonpath_filter import compile_filter
from sfn_emulator.asl.jsonpath_query import Query, QueryNotFound
from sfn_emulator.asl.jsonpath_tokens import compile_tokens
from sfn_emulator.asl.paths import PathNotFound, compile_path

NAMES = ("a", "b", "id", "x", "items")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=3),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.sampled_from(NAMES), children, max_size=4),
    max_leaves=20,
)

names = st.sampled_from(NAMES)
definite_steps = st.one_of(
    names.map(lambda name: f".{name}"),
    names.map(lambda name: f"['{name}']"),
    st.integers(-3, 3).map(lambda index: f"[{index}]"),
)
indefinite_steps = st.one_of(
    st.just("[*]"),
    st.just(".*"),
    names.map(lambda name: f"..{name}"),
    st.sampled_from(["[1:3]", "[-2:]", "[:1]", "[0,1]"]),
    st.sampled_from(["[?(@.x > 1)]", "[?(@.id == 'a' || @.x)]", "[?(@.x == 1 && @.id)]", "[?(@.x)]"]),
)
merged_leaf = st.lists(names, min_size=2, max_size=3).map(lambda keys: "[" + ",".join(f"'{key}'" for key in keys) + "]")

definite_paths = st.lists(definite_steps, max_size=5).map(lambda steps: "$" + "".join(steps))
any_paths = st.builds(
    lambda steps, leaf: "$" + "".join(steps) + leaf,
    st.lists(definite_steps | indefinite_steps, max_size=5),
    st.just("") | merged_leaf,
)


@settings(max_examples=400, deadline=None)
@given(value=json_values, text=any_paths)
def test_any_path_on_any_json_yields_a_value_or_path_not_found(value: Any, text: str) -> None:
    path = compile_path(text)
    before = copy.deepcopy(value)
    try:
        result = path.evaluate(value, FixedScope())
    except PathNotFound as missing:
        assert missing.path == text
        assert missing.reason
    else:
        if not path.is_definite:
            assert isinstance(result, list)
    assert value == before


@settings(max_examples=400, deadline=None)
@given(value=json_values, text=definite_paths)
def test_the_fast_definite_walk_agrees_with_the_token_walk(value: Any, text: str) -> None:
    """Definite paths take a fast loop; the general Jayway token walk must select the same value."""
    try:
        matches = Query(compile_tokens(text, 1, compile_filter)).find(value)
    except QueryNotFound:
        matches = []
    try:
        result = compile_path(text).evaluate(value, FixedScope())
    except PathNotFound:
        assert matches == []
    else:
        assert matches == [result]
