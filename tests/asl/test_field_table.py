"""The field table is what the parser checks a state's fields against, in each query language."""

from __future__ import annotations

import json

import pytest

from sfn_emulator.asl.model import JSONATA, JSONPATH
from sfn_emulator.asl.parser import validate_definition
from sfn_emulator.asl.parsing.field_table import FIELDS
from sfn_emulator.asl.parsing.rules import STATE_TYPES

OTHER = {JSONPATH: JSONATA, JSONATA: JSONPATH}
LANGUAGE_NAMES = {JSONPATH: "JSONPath", JSONATA: "JSONata"}
ONE_LANGUAGE = [(spec.name, state_type, spec.languages[0]) for spec in FIELDS.rows if len(spec.languages) == 1
                for state_type in spec.owners if state_type in STATE_TYPES]


def messages(state: dict) -> list[str]:
    definition = {"StartAt": "S", "States": {"S": state}}
    return [diagnostic.message for diagnostic in validate_definition(json.dumps(definition))]


@pytest.mark.parametrize(("field", "state_type", "language"), ONE_LANGUAGE)
def test_a_field_of_one_query_language_is_refused_in_the_other(field: str, state_type: str, language: str) -> None:
    used = OTHER[language]
    state = {"Type": state_type, "QueryLanguage": used, field: "x"}
    assert (f"The QueryLanguage is set to '{LANGUAGE_NAMES[used]}', but field '{field}' is only supported for the "
            f"'{LANGUAGE_NAMES[language]}' QueryLanguage") in messages(state)


@pytest.mark.parametrize("state_type", ["Task", "Wait", "Pass", "Succeed", "Fail", "Choice", "Parallel", "Map"])
@pytest.mark.parametrize("language", [JSONPATH, JSONATA])
def test_a_field_outside_the_table_is_not_supported(state_type: str, language: str) -> None:
    state = {"Type": state_type, "QueryLanguage": language, "Unheard": 1}
    assert any("Unheard" in message for message in messages(state))
