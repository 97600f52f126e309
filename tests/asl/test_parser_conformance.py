"""Every definition AWS accepted in the recorded conformance runs parses: JSONPath and JSONata,
with and without workflow variables.

AWS created each of these machines (or ran each TestState definition), so none may be refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sfn_emulator.asl.parser import InvalidDefinitionError, parse_definition, parse_single_state

CASES_DIR = Path("/work/shared/conformance/cases")
CASES = [json.loads(path.read_text()) for path in sorted(CASES_DIR.glob("*.json"))] if CASES_DIR.is_dir() else []

pytestmark = pytest.mark.skipif(not CASES, reason=f"the conformance cases are not at {CASES_DIR}")


def parse_case(case: dict) -> None:
    """A TestState case may hold one state on its own; every other case holds a whole machine."""
    if case["kind"] == "test_state" and "States" not in json.loads(case["definition"]):
        parse_single_state(case["definition"], state_machine_type=case["state_machine_type"])
    else:
        parse_definition(case["definition"], state_machine_type=case["state_machine_type"])


def test_every_definition_aws_accepted_parses() -> None:
    refused = {}
    for case in CASES:
        try:
            parse_case(case)
        except InvalidDefinitionError as error:
            refused[case["id"]] = error.message
    assert refused == {}
    assert len(CASES) > 800
