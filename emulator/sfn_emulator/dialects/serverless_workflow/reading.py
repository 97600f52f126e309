"""What the three Serverless Workflow readers (the draft, the 0.6-0.8 drafts, DSL 1.0) share: the
text read as the object every version writes a workflow as (or one refusal), every problem of the
document collected in ValidateStateMachineDefinition's form rather than raised, located by JSON
pointer, and durations read with a problem where one is malformed."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable, Generic, Mapping, TypeVar

from msgspec import UNSET

from sfn_emulator.asl.validation import ERROR, INVALID_JSON_DESCRIPTION, SCHEMA_VALIDATION_FAILED, Diagnostic
from sfn_emulator.dialects.documents import read_document
from sfn_emulator.dialects.serverless_workflow.durations import duration_seconds

_NOT_AN_OBJECT = "A workflow is a JSON or YAML object"
_ROOT = "/"  # the JSON pointer of the whole document
WorkflowT = TypeVar("WorkflowT")
MeasureT = TypeVar("MeasureT")


class WorkflowReader(ABC, Generic[WorkflowT]):
    """One document's reading; a version's reader adds `workflow()`, the model of the document."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.problems: list[Diagnostic] = []

    @classmethod
    def read(cls, text: str, document: Any = UNSET) -> tuple[WorkflowT | None, list[Diagnostic]]:
        """The document's model (None when it cannot be made) and every problem found; a text that
        is no object is one problem, at the document's root as every other problem of the whole is.
        `document`: the text's value when the caller has read it already (the dialect registry)."""
        if document is UNSET:
            try:
                document = read_document(text)
            except ValueError as error:
                return None, [Diagnostic(ERROR, INVALID_JSON_DESCRIPTION, f"{_NOT_AN_OBJECT}: {error}", _ROOT)]
        if not isinstance(document, Mapping):
            return None, [Diagnostic(ERROR, INVALID_JSON_DESCRIPTION, _NOT_AN_OBJECT, _ROOT)]
        reader = cls(document)
        return reader.workflow(), reader.problems

    @abstractmethod
    def workflow(self) -> WorkflowT | None: ...

    def problem(self, message: str, where: str, code: str = SCHEMA_VALIDATION_FAILED) -> None:
        self.problems.append(Diagnostic(ERROR, code, message, where or _ROOT))

    def duration(self, value: Any, where: str) -> float | None:
        """The seconds of an ISO 8601 duration as the drafts write it (`PT15M`); None when absent."""
        return None if value is None else self.measured(value, where, duration_seconds)

    def measured(self, value: Any, where: str, measure: Callable[[Any], MeasureT]) -> MeasureT | None:
        """`measure(value)` (a duration's reading), or None and the problem its ValueError names."""
        try:
            return measure(value)
        except ValueError as error:
            self.problem(str(error), where)
            return None
