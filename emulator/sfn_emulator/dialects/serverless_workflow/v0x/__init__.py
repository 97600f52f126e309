"""The Serverless Workflow drafts 0.6, 0.7 and 0.8 as a dialect: read into the draft's model and run
by the draft's interpreter (`serverless_workflow.interpreter`), with jq expressions and 0.8's data
filters (`v0x.expressions`).

Recognition: a JSON or YAML object without ASL's `States`, with a `states` array holding a state
with a `type` (SM4C's have none), and a
`specVersion` of 0.x (0.7, 0.8), or a top-level `start`, or no state marking itself as the start (0.6
has no `specVersion`; the draft of the design documents marks its start state with `start`). The tag `sfn-emulator:dialect` =
`serverless-workflow-0.x` forces it.
"""

from __future__ import annotations

from typing import Any, Mapping

from sfn_emulator.dialects.serverless_workflow.lazy_dialect import LazyWorkflowDialect

NAME = "serverless-workflow-0.x"


def is_later_draft(document: Any) -> bool:
    """A 0.6-0.8 document (see the module docstring)."""
    if not isinstance(document, Mapping) or "States" in document or not isinstance(document.get("states"), list):
        return False
    states = [state for state in document["states"] if isinstance(state, Mapping)]
    if not any("type" in state for state in states):  # SM4C's states have none
        return False
    version = document.get("specVersion")
    if (isinstance(version, str) and version.startswith("0.")) or "start" in document:
        return True
    return not any("start" in state for state in states)


class LaterDraftsDialect(LazyWorkflowDialect, frozen=True):
    def recognises(self, document: Any) -> bool:
        return is_later_draft(document)


LATER_DRAFTS = LaterDraftsDialect(NAME, "sfn_emulator.dialects.serverless_workflow.v0x.parser",
                                  "sfn_emulator.dialects.serverless_workflow.v0x.model", "LaterDraftWorkflow",
                                  mockable="sfn_emulator.dialects.serverless_workflow.model")
