"""One execution of a workflow as its interpreter's parts share it, and the small helpers they share."""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from sfn_emulator.asl.task_targets import ResourceArn
from sfn_emulator.dialects.serverless_workflow import model as m
from sfn_emulator.engine.frame import Frame, Run
from sfn_emulator.resources.base import TaskRequest

JSON = Any


class WorkflowRun(Struct):
    """One execution's view: the model, and the correlation values its consumed events fixed."""

    model: m.Workflow
    run: Run
    input: JSON  # what top-level expressions (a correlation's contextAttributeValue) read, as the draft says
    correlation: dict[str, JSON] = field(default_factory=dict)


def note_rule(frame: Frame, rule: str) -> None:
    frame.run.execution.rules_taken.setdefault(frame.entered_event_id, []).append(rule)


def task_request(resource: ResourceArn, payload: JSON, name: str, run: Run, frame: Frame, timeout: float | None) -> TaskRequest:
    return TaskRequest(resource=resource, payload=payload, execution_arn=run.execution.arn,
                       state_machine_name=run.execution.state_machine_name, state_name=name,
                       account=run.execution.account, region=run.execution.region, attempt=frame.retry_count,
                       timeout_seconds=timeout, now=run.now(), test_case=run.execution.test_case,
                       seed=run.request_seed())
