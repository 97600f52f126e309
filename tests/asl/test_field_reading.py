"""The parser reads every field the table describes with one reader: a row is all a new field needs for
the parser to know it, check its literal, compile its `…Path` twin and its `{% %}` expression, and give
the compiled field to the model attribute of its snake_case name."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest
from helpers.scopes import FixedScope

from sfn_emulator.asl import fields, model
from sfn_emulator.asl.jsonata_expressions import POSITIVE_INTEGER
from sfn_emulator.asl.model import JSONATA, JSONPATH
from sfn_emulator.asl.parser import parse_definition, validate_definition
from sfn_emulator.asl.parsing.field_table import (
    BRANCH,
    FIELDS,
    ITEM_PROCESSOR,
    ROWS,
    STATE_MACHINE,
    FieldSpec,
    FieldTable,
    LiteralRule,
)
from sfn_emulator.asl.parsing.machines import Parser
from sfn_emulator.asl.parsing.rules import STANDARD

class ClockedScope(FixedScope):
    """JSONata expressions bind the execution's clock."""

    def now(self) -> datetime:
        return datetime(2024, 1, 1, tzinfo=timezone.utc)


PROCESSOR = {"StartAt": "P", "States": {"P": {"Type": "Succeed"}}}
DISTRIBUTED = {**PROCESSOR, "ProcessorConfig": {"Mode": "DISTRIBUTED"}}

# Where each owner's fields are written in a definition, and where the model keeps what was read.
OWNERS: dict[str, tuple[Any, Any]] = {
    "Task": (lambda given, language: {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "End": True,
                                      **given},
             lambda state: state),
    "Wait": (lambda given, language: {"Type": "Wait", "End": True, **given}, lambda state: state),
    "Fail": (lambda given, language: {"Type": "Fail", **given}, lambda state: state),
    "Map": (lambda given, language: {"Type": "Map", "End": True, "ItemProcessor": PROCESSOR, **given},
            lambda state: state),
    "ReaderConfig": (
        lambda given, language: {
            "Type": "Map", "End": True, "ItemProcessor": DISTRIBUTED,
            "ItemReader": {"Resource": "arn:aws:states:::s3:getObject", "ReaderConfig": {"InputType": "JSON", **given},
                           "Arguments" if language == JSONATA else "Parameters": {"Bucket": "b", "Key": "k"}},
        },
        lambda state: state.item_reader.reader_config,
    ),
    "ItemBatcher": (
        lambda given, language: {"Type": "Map", "End": True, "ItemProcessor": DISTRIBUTED, "ItemBatcher": given},
        lambda state: state.item_batcher,
    ),
}
WITH_FORMS = [(spec, owner) for spec in FIELDS.rows if spec.literal is not None and spec.expression is not None
              for owner in spec.owners]
SAMPLES = {"INTEGER": 7, "NUMBER": 7, "STRING": "2030-01-01T00:00:00Z"}  # a literal every row's rule accepts


def read(owner: str, given: dict[str, Any], language: str) -> Any:
    state, attribute_holder = OWNERS[owner]
    definition = {"QueryLanguage": language, "StartAt": "S", "States": {"S": state(given, language)}}
    return attribute_holder(parse_definition(json.dumps(definition)).states["S"])


def messages(owner: str, given: dict[str, Any], language: str = JSONPATH, table: FieldTable = FIELDS) -> list[str]:
    definition = {"QueryLanguage": language, "StartAt": "S", "States": {"S": OWNERS[owner][0](given, language)}}
    parser = Parser(STANDARD, table)
    parser.machine(definition, "", kind=STATE_MACHINE, query_language=JSONPATH)
    return [diagnostic.message for diagnostic in parser.diagnostics]


def test_every_field_with_forms_has_an_owner_this_test_knows() -> None:
    assert {owner for _, owner in WITH_FORMS} <= set(OWNERS)


@pytest.mark.parametrize(("spec", "owner"), WITH_FORMS, ids=[f"{owner}.{spec.name}" for spec, owner in WITH_FORMS])
def test_each_form_of_a_field_compiles_into_its_model_attribute(spec: FieldSpec, owner: str) -> None:
    assert spec.literal is not None
    sample = SAMPLES[spec.literal.json_type]
    literal = getattr(read(owner, {spec.name: sample}, JSONPATH), spec.attribute)
    assert isinstance(literal, model.Constant)
    assert literal.value == (spec.literal.convert(sample) if spec.literal.convert else sample)

    path = getattr(read(owner, {spec.twin: "$.given"}, JSONPATH), spec.attribute)
    assert isinstance(path, fields.PathField) and path.rule is spec.path and path.text == "$.given"

    expression = getattr(read(owner, {spec.name: "{% $states.input.given %}"}, JSONATA), spec.attribute)
    evaluated = expression.evaluate({"input": {"given": sample}}, ClockedScope())
    assert evaluated == (spec.expression_convert(sample) if spec.expression_convert else sample)


@pytest.mark.parametrize(("spec", "owner"), WITH_FORMS, ids=[f"{owner}.{spec.name}" for spec, owner in WITH_FORMS])
def test_a_field_and_its_path_twin_are_refused_together_and_the_twin_in_jsonata(spec: FieldSpec, owner: str) -> None:
    assert spec.literal is not None
    both = messages(owner, {spec.name: SAMPLES[spec.literal.json_type], spec.twin: "$.given"})
    if spec.twin_exclusive:
        assert f"A {owner} state cannot include both field '{spec.name}' and '{spec.twin}'" in both
    else:  # the owner's own rule covers the pair (a Wait takes exactly one duration)
        assert not any("cannot include both" in message for message in both) and both
    if owner != "ReaderConfig":  # a ReaderConfig takes one set of fields in both languages (map_fields)
        misplaced = messages(owner, {spec.twin: "$.given"}, JSONATA)
        assert any(f"'{spec.twin}'" in message for message in misplaced)


# A field the language does not have: one row makes the parser know it, in every form.
POLL_SECONDS_PATH = fields.PathRule(fields.invalid_path, lambda selected, text: selected)
WITH_A_NEW_FIELD = FieldTable(ROWS + (
    FieldSpec("PollSeconds", ("Wait",), literal=LiteralRule("INTEGER", minimum=1), path=POLL_SECONDS_PATH,
              expression=POSITIVE_INTEGER),
))


@pytest.mark.parametrize(("given", "language", "expected"), [
    ({"PollSeconds": 0}, JSONPATH, ["The value for the field 'PollSeconds' must be greater than or equal to 1"]),
    ({"PollSeconds": "5"}, JSONPATH, ["Expected value of type [INTEGER]"]),
    ({"PollSeconds": 5, "PollSecondsPath": "$.p"}, JSONPATH,
     ["A Wait state cannot include both field 'PollSeconds' and 'PollSecondsPath'"]),
    ({"PollSecondsPath": "$..["}, JSONPATH, ["The value for the field 'PollSecondsPath' must be a valid JSONPath"]),
    ({"PollSecondsPath": "$.p"}, JSONATA,
     ["The QueryLanguage is set to 'JSONata', but field 'PollSecondsPath' is only supported for the 'JSONPath' "
      "QueryLanguage"]),
    ({"PollSeconds": "{% $x + %}"}, JSONATA, None),  # refused as AWS refuses any bad expression
])
def test_a_new_field_is_one_row_of_the_table(given: dict[str, Any], language: str, expected: list[str] | None) -> None:
    reported = messages("Wait", {"Seconds": 1, **given}, language, WITH_A_NEW_FIELD)
    assert not any("not supported" in message for message in reported)
    assert reported if expected is None else reported == expected
    assert "Field 'PollSeconds' is not supported" in messages("Wait", {"Seconds": 1, "PollSeconds": 5})


@pytest.mark.parametrize(("given", "language", "compiled"), [
    ({"PollSeconds": 5}, JSONPATH, model.Constant(5)),
    ({"PollSecondsPath": "$.p"}, JSONPATH, fields.PathField),
    ({"PollSeconds": "{% 1 + 1 %}"}, JSONATA, 2),
])
def test_a_new_field_s_forms_compile_by_its_row(given: dict[str, Any], language: str, compiled: Any) -> None:
    parser = Parser(STANDARD, WITH_A_NEW_FIELD)
    parser.recorder.language = language
    field = parser.table_fields.read("Wait", given, "/States/W")["poll_seconds"]
    assert parser.diagnostics == []
    if isinstance(compiled, type):
        assert isinstance(field, compiled) and field.rule is POLL_SECONDS_PATH
    elif isinstance(compiled, model.Constant):
        assert field == compiled
    else:
        assert field.evaluate({}, ClockedScope()) == compiled


# The model records the table's owners read into; each attribute the table names must be one of theirs.
MODELS = {
    "Task": model.TaskState, "Wait": model.WaitState, "Fail": model.FailState, "Map": model.MapState,
    "Retrier": model.Retrier, "ReaderConfig": model.ReaderConfig, "ItemBatcher": model.ItemBatcher,
    "WriterConfig": model.ResultWriter, STATE_MACHINE: model.StateMachine, BRANCH: model.StateMachine,
    ITEM_PROCESSOR: model.StateMachine,
}
READ_BY_TABLE = [(spec, owner) for spec in FIELDS.rows if spec.literal is not None for owner in spec.owners
                 if owner != "ProcessorConfig"]  # Mode and ExecutionType become the Map's processor_mode, execution_type


@pytest.mark.parametrize(("spec", "owner"), READ_BY_TABLE, ids=[f"{owner}.{spec.name}" for spec, owner in READ_BY_TABLE])
def test_each_field_the_table_reads_is_an_attribute_of_its_owner_s_model(spec: FieldSpec, owner: str) -> None:
    assert spec.attribute in MODELS[owner].__struct_fields__


def test_the_wait_timestamp_literal_is_a_time() -> None:
    timestamp = read("Wait", {"Timestamp": "2030-01-01T00:00:00Z"}, JSONPATH).timestamp
    assert isinstance(timestamp.value, datetime)
    assert validate_definition(json.dumps({"StartAt": "W", "States": {"W": {
        "Type": "Wait", "Timestamp": "tomorrow", "End": True}}}))
