"""Definitions read from JSON or YAML files or standard input, as the Python API and the CLI read them:
JSON text is passed on untouched (AWS judges it), YAML becomes the JSON it stands for."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from sfn_emulator.protocol.definition_files import (
    UnreadableDefinition,
    default_machine_name,
    read_definition,
    read_definition_file,
)

PASS_YAML = "StartAt: A\nStates:\n  A: {Type: Pass, End: true}\n"
PASS_JSON = {"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}}


@pytest.mark.parametrize(("file_name", "text"), [
    ("Machine.asl.json", '{"StartAt": "A", "States": {}}'),
    ("Machine.asl.json", '  {"StartAt": "A", oops'),  # malformed JSON is AWS's to report
    ("Machine.txt", '{"StartAt": "A"}'),
])
def test_json_text_is_passed_on_untouched(tmp_path: Path, file_name: str, text: str) -> None:
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    assert read_definition_file(path) == text


@pytest.mark.parametrize(("file_name", "text"), [
    ("Machine.asl.yaml", PASS_YAML),
    ("Machine.YML", PASS_YAML),
    ("Machine.asl.json", PASS_YAML),  # not starting with `{`: read as YAML whatever the name
    ("Machine.yaml", '{"StartAt": "A", "States": {"A": {"Type": "Pass", "End": true}}}'),  # YAML's flow style
])
def test_yaml_becomes_the_json_it_stands_for(tmp_path: Path, file_name: str, text: str) -> None:
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    assert json.loads(read_definition_file(path)) == PASS_JSON


def test_yaml_timestamps_stay_strings_as_in_json(tmp_path: Path) -> None:
    path = tmp_path / "Wait.asl.yaml"
    path.write_text("StartAt: W\nStates:\n  W: {Type: Wait, Timestamp: 2024-01-01T00:00:00Z, End: true}\n")
    assert json.loads(read_definition_file(path))["States"]["W"]["Timestamp"] == "2024-01-01T00:00:00Z"


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "Machine.asl.json"
    path.write_text('{"StartAt": "A"}', encoding="utf-8-sig")
    assert read_definition_file(path) == '{"StartAt": "A"}'


def test_dash_reads_the_definition_from_standard_input() -> None:
    assert json.loads(read_definition("-", io.StringIO(PASS_YAML))) == PASS_JSON
    assert read_definition("-", io.StringIO('{"StartAt": "A"}')) == '{"StartAt": "A"}'


@pytest.mark.parametrize(("text", "message"), [
    ("StartAt: [A\n", "standard input is neither JSON nor valid YAML: "),
    ("StartAt: !!binary aGVsbG8=\n", "standard input holds a YAML value JSON cannot: "),
])
def test_text_that_is_no_json_shaped_yaml_is_refused_naming_its_source(text: str, message: str) -> None:
    with pytest.raises(UnreadableDefinition) as refusal:
        read_definition("-", io.StringIO(text))
    assert str(refusal.value).startswith(message)


def test_a_missing_file_is_refused_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "Nowhere.asl.json"
    with pytest.raises(UnreadableDefinition, match=f"^cannot read the definition {re.escape(str(missing))}: "):
        read_definition(str(missing))


@pytest.mark.parametrize(("path", "name"), [
    ("OrderFlow.asl.json", "OrderFlow"),
    (Path("machines/Greeting.asl.yaml"), "Greeting"),
    ("machines/plain", "plain"),
])
def test_the_default_machine_name_is_the_file_name_up_to_its_first_dot(path: str | Path, name: str) -> None:
    assert default_machine_name(path) == name
