"""Serverless Workflow DSL 1.0 (the specification's current release, now the Open Workflow
Specification) as a dialect.

Recognition: a JSON or YAML object whose `document.dsl` is a 1.x version text. The tag
`sfn-emulator:dialect` = `serverless-workflow-1.0` forces it. Its parser, interpreter and graph
are imported on first use, as the draft's are.
"""

from __future__ import annotations

from typing import Any, Mapping

from sfn_emulator.dialects.serverless_workflow.lazy_dialect import LazyWorkflowDialect

NAME = "serverless-workflow-1.0"
_HERE = "sfn_emulator.dialects.serverless_workflow.dsl1"


class Dsl1Dialect(LazyWorkflowDialect, frozen=True):
    def recognises(self, document: Any) -> bool:
        head = document.get("document") if isinstance(document, Mapping) and "States" not in document else None
        return isinstance(head, Mapping) and isinstance(head.get("dsl"), str) and head["dsl"].startswith("1.")


DSL1 = Dsl1Dialect(NAME, f"{_HERE}.parser", f"{_HERE}.model", interpreter=f"{_HERE}.interpreter", grapher=f"{_HERE}.graph")
