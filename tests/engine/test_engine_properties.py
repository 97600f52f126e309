"""Property: any small machine of Pass, Choice, Wait, Parallel and Map states runs to an end, and its
history is well formed: ids 1, 2, 3, ..., each previousEventId pointing back, times never going back."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from engine_harness import Harness

from sfn_emulator.engine.execution import TERMINAL_STATUSES

MAX_DEPTH = 2  # Parallel branches and Map processors nest at most this deep


@st.composite
def chains(draw: st.DrawFn, names: Iterator[int], depth: int = 0) -> dict[str, Any]:
    """A chain of 1-4 states over inputs shaped {"n": int, "items": [...]}; every state keeps that shape."""
    kinds = ["Pass", "Choice", "Wait"] + (["Parallel", "Map"] if depth < MAX_DEPTH else [])
    chosen = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=4))
    state_names = [f"S{next(names)}" for _ in chosen]
    states: dict[str, Any] = {}
    for index, (name, kind) in enumerate(zip(state_names, chosen)):
        following = state_names[index + 1] if index + 1 < len(chosen) else None
        if kind == "Choice":
            target = following or f"S{next(names)}"
            if following is None:
                states[target] = {"Type": "Succeed"}
            states[name] = {"Type": "Choice", "Default": target,
                            "Choices": [{"Variable": "$.n", "NumericLessThan": draw(st.integers(0, 5)), "Next": target}]}
            continue
        if kind == "Pass":
            state: dict[str, Any] = {"Type": "Pass", "Result": draw(st.integers()), "ResultPath": "$.last"}
        elif kind == "Wait":
            state = {"Type": "Wait", "Seconds": draw(st.integers(0, 3600))}
        elif kind == "Parallel":
            branches = draw(st.lists(chains(names, depth + 1), min_size=1, max_size=3))
            state = {"Type": "Parallel", "Branches": branches, "ResultPath": "$.last"}
        else:
            state = {"Type": "Map", "ItemsPath": "$.items", "MaxConcurrency": draw(st.integers(0, 2)),
                     "ItemSelector": {"n.$": "$$.Map.Item.Value", "items": []},
                     "ItemProcessor": draw(chains(names, depth + 1)), "ResultPath": "$.last"}
        states[name] = {**state, "Next": following} if following else {**state, "End": True}
    return {"StartAt": state_names[0], "States": states}


machines = st.builds(lambda: itertools.count()).flatmap(lambda names: chains(names))
inputs = st.fixed_dictionaries({"n": st.integers(0, 5), "items": st.lists(st.integers(0, 5), max_size=3)})


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    with Harness(mode="auto") as shared:
        yield shared


@settings(max_examples=60, deadline=None)
@given(machine=machines, execution_input=inputs)
def test_generated_machines_end_with_a_well_formed_history(harness: Harness, machine: dict[str, Any],
                                                           execution_input: dict[str, Any]) -> None:
    execution = harness.run(machine, execution_input)
    assert execution.status in TERMINAL_STATUSES
    history = execution.history
    assert [event["id"] for event in history] == list(range(1, len(history) + 1))
    assert all(0 <= event["previousEventId"] < event["id"] for event in history)
    assert all(earlier["timestamp"] <= later["timestamp"] for earlier, later in zip(history, history[1:]))
    assert history[0]["type"] == "ExecutionStarted"
    assert history[-1]["type"] == "ExecutionSucceeded"
