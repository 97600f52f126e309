"""Stacks as they are deployed, loaded into an emulator: SAM and CloudFormation templates, CDK cloud
assemblies, Serverless Framework packages and Terraform's JSON.

Outside the core: the format readers turn each input into CloudFormation-shaped `StackTemplate`s
(`sfn_emulator.stacks.model`); one resolver evaluates their intrinsics; one loader makes what they
declare through the operations a user would call (`sfn_emulator.stacks.loader.Target`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from sfn_emulator.stacks.loader import STATE_MACHINE, StackLoader, Target
from sfn_emulator.stacks.model import StackError, StackTemplate, Unresolved
from sfn_emulator.stacks.records import LoadedFunction, LoadedResource, LoadedStateMachine, Stack

__all__ = ["LoadedFunction", "LoadedResource", "LoadedStateMachine", "Stack", "StackError", "StackLoader", "Target",
           "Unresolved", "load_stack"]


def load_stack(target: Target, path: str | Path, parameters: Mapping[str, str] | None = None,
               exports: dict[str, Any] | None = None) -> Stack:
    """Read the stack(s) at `path` and load them into `target`; `exports` carries the Outputs' exports
    between loads. StackError when the input cannot be read at all."""
    from sfn_emulator.stacks.readers import read_stack

    templates = read_stack(Path(path), parameters=parameters or {}, account=target.account, region=target.region)
    if not any(_has_state_machine(template) for template in templates):
        raise StackError(f"{path}: no state machine (AWS::StepFunctions::StateMachine or "
                         "AWS::Serverless::StateMachine) in the stack")
    return StackLoader(target, exports).load(templates, parameters or {})


def _has_state_machine(template: StackTemplate) -> bool:
    return any(isinstance(resource, dict) and resource.get("Type") == STATE_MACHINE
               for resource in template.resources.values()) or \
        any(_has_state_machine(child) for child in template.nested.values())
