"""The resources of one (account, region): state machines with their versions and aliases,
activities, and STANDARD executions. Plain records; the operation modules own the rules."""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

from msgspec import Struct, field

from sfn_emulator.asl.model import StateMachine
from sfn_emulator.engine.execution import Execution, MapRun

ACTIVE = "ACTIVE"
DELETING = "DELETING"


class Revision(Struct, frozen=True):
    """One configuration of a state machine: what an execution or a version runs."""

    definition: str  # exactly as the client sent it
    machine: StateMachine  # the parsed definition
    role_arn: str
    logging_configuration: dict[str, Any]
    tracing_configuration: dict[str, Any]
    encryption_configuration: dict[str, Any]  # as described: the AWS-owned key when none was given
    revision_id: str | None  # None until the first UpdateStateMachine that changes something
    update_date: datetime  # when this configuration was created (CreateStateMachine or UpdateStateMachine)
    number: int  # 0 for the configuration of CreateStateMachine, +1 per changing update


class Version(Struct):
    """A published, immutable version of a state machine (`...:stateMachine:NAME:N`)."""

    arn: str
    number: int
    revision: Revision
    description: str | None
    creation_date: datetime


class Alias(Struct):
    """A named pointer to one or two versions (`...:stateMachine:NAME:ALIAS`)."""

    arn: str
    name: str
    description: str | None
    routing: list[dict[str, Any]]  # [{"stateMachineVersionArn": ..., "weight": ...}]
    creation_date: datetime
    sequence: int
    update_date: datetime  # the creation date until UpdateStateMachineAlias


class StateMachineRecord(Struct):
    arn: str
    name: str
    type: str  # STANDARD | EXPRESS
    creation_date: datetime
    current: Revision
    created_with: dict[str, Any]  # CreateStateMachine's publish and versionDescription (idempotency checks them)
    tags: dict[str, str] = field(default_factory=dict)
    status: str = ACTIVE
    versions: dict[int, Version] = field(default_factory=dict)
    next_version: int = 1
    aliases: dict[str, Alias] = field(default_factory=dict)

    def version_for(self, revision: Revision) -> Version | None:
        """The published version of `revision`, if one still exists."""
        return next((v for v in self.versions.values() if v.revision.number == revision.number), None)


class ActivityRecord(Struct):
    arn: str
    name: str
    creation_date: datetime
    encryption_configuration: dict[str, Any]  # as described: the AWS-owned key when none was given
    tags: dict[str, str] = field(default_factory=dict)


class ExecutionEntry(Struct):
    """A STANDARD execution and the state machine configuration it runs."""

    execution: Execution
    revision: Revision
    sequence: int  # start order, for newest-first listings
    redrive_client_token: str | None = None
    map_run_arn: str | None = None  # set for the child executions of a Distributed Map run


class Store(Struct):
    account: str
    region: str
    state_machines: dict[str, StateMachineRecord] = field(default_factory=dict)  # by unqualified ARN
    activities: dict[str, ActivityRecord] = field(default_factory=dict)
    executions: dict[str, ExecutionEntry] = field(default_factory=dict)  # add with `add_execution`
    map_runs: dict[str, MapRun] = field(default_factory=dict)
    _sequence: itertools.count = field(default_factory=itertools.count)
    # The same entries by state machine, in start order: a listing reads one machine's executions only.
    _by_machine: dict[str, dict[str, ExecutionEntry]] = field(default_factory=dict)

    def next_sequence(self) -> int:
        return next(self._sequence)

    def continue_sequence(self, last: int) -> None:
        """Number new executions after `last` (executions loaded from a store keep theirs)."""
        self._sequence = itertools.count(last + 1)

    def add_execution(self, entry: ExecutionEntry) -> None:
        arn = entry.execution.arn
        self.executions[arn] = entry
        self._by_machine.setdefault(entry.execution.state_machine_arn, {})[arn] = entry

    def executions_of(self, machine_arn: str) -> list[ExecutionEntry]:
        """The machine's executions (map run children included), oldest first."""
        return list(self._by_machine.get(machine_arn, {}).values())

    def finish_deletions(self) -> None:
        """Remove DELETING state machines whose executions have all ended (with their executions)."""
        for record in [r for r in self.state_machines.values() if r.status == DELETING]:
            entries = self.executions_of(record.arn)
            if not any(entry.execution.is_running for entry in entries):
                del self.state_machines[record.arn]
                for entry in entries:
                    self.forget_execution(entry.execution.arn)

    def forget_execution(self, execution_arn: str) -> None:
        """Remove an execution with its map runs and their child executions."""
        self._pop_execution(execution_arn)
        for map_run_arn in [arn for arn, run in self.map_runs.items() if run.execution_arn == execution_arn]:
            for child in self.map_runs.pop(map_run_arn).executions:
                self._pop_execution(child.arn)

    def _pop_execution(self, execution_arn: str) -> None:
        entry = self.executions.pop(execution_arn, None)
        if entry is not None:
            of_machine = self._by_machine.get(entry.execution.state_machine_arn, {})
            of_machine.pop(execution_arn, None)
            if not of_machine:
                self._by_machine.pop(entry.execution.state_machine_arn, None)
