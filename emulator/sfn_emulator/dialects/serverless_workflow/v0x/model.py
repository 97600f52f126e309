"""The model of a 0.6-0.8 document: the draft's, under its own class so that an execution's model
says which dialect it came from (the registry picks a dialect by its model's class)."""

from __future__ import annotations

from sfn_emulator.dialects.serverless_workflow.model import Workflow


class LaterDraftWorkflow(Workflow, frozen=True):
    """A 0.6-0.8 workflow, run by the draft's interpreter."""
