"""Every definition AWS accepted in the recorded conformance runs parses.

AWS created each of these machines (or ran each TestState definition), so none may be refused.
Cases that need JSONata or workflow variables are left out: this emulator does not support them
yet, and refuses them with an UNSUPPORTED_FEATURE diagnostic, which is checked here too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emulator.asl.parser import InvalidDefinitionError, parse_definition, parse_single_state

CASES_DIR = Path("/work/shared/conformance/cases")
CASES = [json.loads(path.read_text()) for path in sorted(CASES_DIR.glob("*.json"))] if CASES_DIR.is_dir() else []
NOT_YET_SUPPORTED = {"jsonata", "variables"}
SUPPORTED = [case for case in CASES if not NOT_YET_SUPPORTED & set(case.get("needs", ()))]
UNSUPPORTED = [case for case in CASES if NOT_YET_SUPPORTED & set(case.get("needs", ()))]

pytestmark = pytest.mark.skipif(not CASES, reason=f"the conformance cases are not at {CASES_DIR}")


def parse_case(case: dict) -> None:
    """A TestState case may hold one state on its own; every other case holds a whole machine."""
    if case["kind"] == "test_state" and "States" not in json.loads(case["definition"]):
        parse_single_state(case["definition"], state_machine_type=case["state_machine_type"])
    else:
        parse_definition(case["definition"], state_machine_type=case["state_machine_type"])


def test_every_definition_aws_accepted_parses() -> None:
    refused = {}
    for case in SUPPORTED:
        try:
            parse_case(case)
        except InvalidDefinitionError as error:
            refused[case["id"]] = error.message
    assert refused == {}
    assert len(SUPPORTED) > 600


def test_jsonata_and_variables_are_refused_as_not_supported_yet_and_for_nothing_else() -> None:
    other_reasons = {}
    for case in UNSUPPORTED:
        try:
            parse_case(case)
        except InvalidDefinitionError as error:
            codes = {diagnostic.code for diagnostic in error.diagnostics}
            if codes != {"UNSUPPORTED_FEATURE"}:
                other_reasons[case["id"]] = error.message
        else:
            other_reasons[case["id"]] = "accepted"
    assert other_reasons == {}
