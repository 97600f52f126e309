"""The control plane: state machines, versions, aliases, executions, activities and tags, with
AWS's semantics, as plain Python (`StepFunctionsService`)."""

from sfn_emulator.service.service import StepFunctionsService

__all__ = ["StepFunctionsService"]
