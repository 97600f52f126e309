"""The record of one execution: what the control plane shows and what the engine updates."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from emulator.asl.model import StateMachine

RUNNING = "RUNNING"
SUCCEEDED = "SUCCEEDED"
FAILED = "FAILED"
TIMED_OUT = "TIMED_OUT"
ABORTED = "ABORTED"
PENDING_REDRIVE = "PENDING_REDRIVE"
TERMINAL_STATUSES = frozenset({SUCCEEDED, FAILED, TIMED_OUT, ABORTED})


@dataclass(eq=False)
class Execution:
    """One run of a state machine. The control plane creates it; only the engine changes it after start."""

    arn: str
    name: str
    state_machine_arn: str  # the unqualified state machine ARN
    state_machine_name: str
    machine: StateMachine  # the parsed definition that runs
    definition: str  # the definition text that runs (DescribeStateMachineForExecution)
    input: str  # JSON text
    start_date: datetime
    account: str
    region: str
    role_arn: str
    type: str = "STANDARD"  # STANDARD | EXPRESS
    state_machine_version_arn: str | None = None
    state_machine_alias_arn: str | None = None
    trace_header: str | None = None
    test_case: str | None = None  # the mock test case named by `stateMachineArn#CASE`
    parent_execution_arn: str | None = None
    status: str = RUNNING
    stop_date: datetime | None = None
    output: str | None = None
    error: str | None = None
    cause: str | None = None
    redrive_count: int = 0
    redrive_date: datetime | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    finished: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def is_running(self) -> bool:
        return self.status == RUNNING
