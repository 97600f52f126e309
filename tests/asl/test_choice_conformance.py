"""Every `choice_operators` run recorded on AWS: our Choice rules pick the branch AWS picked.

Each recorded machine is a Choice state whose branches are Pass states with a fixed `Result`.
The test evaluates the Choice state's rules against the recorded input, follows the chosen
branch (or `Default`), and checks that the Pass state it lands on produces AWS's output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.scopes import FixedScope

from sfn_emulator.asl.choice import compile_choice_rule

CASES_DIR = Path("/work/shared/conformance/cases")
RULE_ONLY_FIELDS = ("Next", "Comment", "Assign", "Output")
PASS_FIELDS = {"Type", "Result", "End", "Comment"}


def _load_cases() -> list[dict[str, Any]]:
    if not CASES_DIR.is_dir():
        return []
    cases = (json.loads(path.read_text()) for path in sorted(CASES_DIR.glob("*.json")))
    return [case for case in cases if case.get("category") == "choice_operators"]


def _is_simple(definition: dict[str, Any]) -> bool:
    """A Choice state (no input/output processing) whose every target is a plain Pass state."""
    states = definition["States"]
    choice = states[definition["StartAt"]]
    if choice["Type"] != "Choice" or {"InputPath", "OutputPath"} & choice.keys():
        return False
    targets = [branch["Next"] for branch in choice["Choices"]] + [choice["Default"]] * ("Default" in choice)
    return all(states[name]["Type"] == "Pass" and states[name].keys() <= PASS_FIELDS for name in targets)


CASES = _load_cases()


@pytest.mark.skipif(not CASES, reason="the recorded AWS cases are not on this machine")
def test_the_recorded_cases_are_all_simple_enough_to_check() -> None:
    assert len(CASES) == 333
    assert all(_is_simple(json.loads(case["definition"])) for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_choice_picks_the_branch_aws_picked(case: dict[str, Any]) -> None:
    definition = json.loads(case["definition"])
    choice = definition["States"][definition["StartAt"]]
    state_input = json.loads(case["input"])
    chosen = choice.get("Default")
    for index, branch in enumerate(choice["Choices"]):
        rule = {key: value for key, value in branch.items() if key not in RULE_ONLY_FIELDS}
        condition = compile_choice_rule(rule, location=f"/States/{definition['StartAt']}/Choices/{index}")
        if condition.matches(state_input, FixedScope()):
            chosen = branch["Next"]
            break
    assert case["expected"]["status"] == "SUCCEEDED"
    assert chosen is not None, "no rule matched and there is no Default"
    assert definition["States"][chosen]["Result"] == case["expected"]["output"]
