"""ResultPath: where a state's result goes in its input. Table-driven from fixtures/paths/."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.paths import compile_result_path

CASES = json.loads((FIXTURES_ROOT / "paths" / "result_path.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["description"] for case in CASES])
def test_apply(case: dict[str, Any]) -> None:
    result_path = compile_result_path(case["result_path"])
    state_input = case["input"]
    before = copy.deepcopy(state_input)
    expect = case["expect"]
    if "error" in expect:
        with pytest.raises(StatesError) as raised:
            result_path.apply(state_input, case["result"])
        assert (raised.value.error, raised.value.cause) == (expect["error"], expect["cause"])
    else:
        assert result_path.apply(state_input, case["result"]) == expect["output"]
    assert state_input == before


def test_only_the_written_path_is_copied() -> None:
    untouched = {"big": list(range(5))}
    state_input = {"keep": untouched, "a": {"b": 1}}
    output = compile_result_path("$.a.c").apply(state_input, 2)
    assert output["keep"] is untouched
    assert output["a"] is not state_input["a"]
    assert state_input == {"keep": untouched, "a": {"b": 1}}


def test_the_result_is_placed_as_is() -> None:
    result = {"payload": [1, 2]}
    assert compile_result_path("$.r").apply({}, result)["r"] is result
