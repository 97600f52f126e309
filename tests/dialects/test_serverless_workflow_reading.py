"""What every version of Serverless Workflow is read alike by (`serverless_workflow.reading`): a text
that is no workflow object is one refusal at the document's root, and a malformed duration is one
problem at its own JSON pointer, whichever version the document is."""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest

from sfn_emulator.asl.validation import ERROR, INVALID_JSON_DESCRIPTION, SCHEMA_VALIDATION_FAILED, Diagnostic
from sfn_emulator.dialects.serverless_workflow.dsl1.parser import read_workflow as read_dsl1
from sfn_emulator.dialects.serverless_workflow.parser import read_workflow as read_draft
from sfn_emulator.dialects.serverless_workflow.v0x.parser import read_workflow as read_later_draft

Reader = Callable[[str], tuple[Any, list[Diagnostic]]]
ISO_ONLY = "'soon' is not an ISO 8601 duration such as 'PT15M' or 'P2DT3H4M'"

# (reader, a document of that version whose only fault is the duration `soon`, its pointer, the message)
VERSIONS: dict[str, tuple[Reader, dict[str, Any], str, str]] = {
    "draft": (read_draft, {"id": "w", "name": "w", "states": [
        {"name": "A", "type": "delay", "start": {"kind": "default"}, "timeDelay": "soon", "end": {"kind": "default"}}]},
        "/states/0/timeDelay", ISO_ONLY),
    "draft retry interval": (read_draft, {"id": "w", "name": "w", "states": [
        {"name": "A", "type": "delay", "start": {"kind": "default"}, "timeDelay": "PT1S", "end": {"kind": "default"},
         "retry": [{"expression": "{{ $.retry }}", "interval": "R2/soon"}]}]},
        "/states/0/retry/0/interval", ISO_ONLY),
    "0.8": (read_later_draft, {"id": "w", "specVersion": "0.8", "start": "A", "states": [
        {"name": "A", "type": "sleep", "duration": "soon", "end": True}]},
        "/states/0/duration", ISO_ONLY),
    "DSL 1.0": (read_dsl1, {"document": {"dsl": "1.0.0", "namespace": "t", "name": "w", "version": "1"},
                            "do": [{"a": {"wait": "soon"}}]},
                "/do/0/a/wait", ISO_ONLY + " (or a duration object)"),
}
READERS = {"draft": read_draft, "0.x": read_later_draft, "DSL 1.0": read_dsl1}
NOT_OBJECTS = {
    "an array": ("[1]", "A workflow is a JSON or YAML object"),
    "broken JSON": ("{", "A workflow is a JSON or YAML object: Invalid JSON or YAML: Expecting property name "
                         "enclosed in double quotes: line 1 column 2 (char 1)"),
}


@pytest.mark.parametrize("version", VERSIONS)
def test_a_malformed_duration_is_one_problem_at_its_pointer(version: str) -> None:
    read, document, where, message = VERSIONS[version]
    assert read(json.dumps(document))[1] == [Diagnostic(ERROR, SCHEMA_VALIDATION_FAILED, message, where)]


@pytest.mark.parametrize("text", NOT_OBJECTS)
@pytest.mark.parametrize("version", READERS)
def test_a_text_that_is_no_object_is_refused_at_the_root(version: str, text: str) -> None:
    source, message = NOT_OBJECTS[text]
    assert READERS[version](source) == (None, [Diagnostic(ERROR, INVALID_JSON_DESCRIPTION, message, "/")])
