"""A Serverless Workflow definition read as the object every version of the specification writes it
as: one reading and one refusal for the draft, the 0.x drafts and DSL 1.0."""

from __future__ import annotations

from typing import Any, Mapping

from msgspec import UNSET

from sfn_emulator.asl.validation import ERROR, INVALID_JSON_DESCRIPTION, Diagnostic
from sfn_emulator.dialects.documents import read_document

_NOT_AN_OBJECT = "A workflow is a JSON or YAML object"


def workflow_object(text: str, location: str | None,
                    document: Any = UNSET) -> tuple[Mapping[str, Any] | None, list[Diagnostic]]:
    """The workflow's object, or None and the diagnostic (at `location`) saying the text is none.
    `document`: the text's value when the caller has read it already."""
    if document is UNSET:
        try:
            document = read_document(text)
        except ValueError as error:
            return None, [Diagnostic(ERROR, INVALID_JSON_DESCRIPTION, f"{_NOT_AN_OBJECT}: {error}", location)]
    if not isinstance(document, Mapping):
        return None, [Diagnostic(ERROR, INVALID_JSON_DESCRIPTION, _NOT_AN_OBJECT, location)]
    return document, []
