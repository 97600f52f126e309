"""JSON text nested deeper than Jackson's limit is refused in Jackson's words whatever Python's
recursion limit is: jsonata-python raises it to 10,000 for the whole process on first use, and a
1,500-level input must not then be taken."""

from __future__ import annotations

import sys

import pytest

from sfn_emulator.asl.json_reading import MAX_NESTING_DEPTH, TOO_DEEP, JsonTextError, read_json


@pytest.mark.parametrize("recursion_limit", [1_000, 10_000])
@pytest.mark.parametrize(("opening", "closing"), [("[", "]"), ('{"a":', "}")])
def test_one_level_past_the_limit_is_refused_whatever_the_recursion_limit(
        recursion_limit: int, opening: str, closing: str) -> None:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(recursion_limit)
    try:
        with pytest.raises(JsonTextError) as refused:
            read_json(opening * (MAX_NESTING_DEPTH + 1) + "1" + closing * (MAX_NESTING_DEPTH + 1))
        assert refused.value.message == TOO_DEEP
    finally:
        sys.setrecursionlimit(previous)


def test_brackets_inside_strings_do_not_count() -> None:
    text = '["' + "[" * 5000 + '\\"' + "{" * 5000 + '"]'
    assert read_json(text) == ["[" * 5000 + '"' + "{" * 5000]
