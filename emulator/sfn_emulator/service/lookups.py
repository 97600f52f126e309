"""The look-ups that turn a state machine ARN into its records, with AWS's not-found errors."""

from __future__ import annotations

from sfn_emulator.service import arns
from sfn_emulator.service.errors import StateMachineDeleting, StateMachineDoesNotExist
from sfn_emulator.service.store import DELETING, StateMachineRecord, Store, Version


def machine(store: Store, ref: arns.MachineRef) -> StateMachineRecord:
    """The state machine `ref` names (its qualifier ignored); StateMachineDoesNotExist if none."""
    record = store.state_machines.get(ref.base_arn)
    if record is None:
        raise StateMachineDoesNotExist(f"State Machine Does Not Exist: '{ref.arn}'")
    return record


def unqualified_machine(store: Store, ref: arns.MachineRef) -> StateMachineRecord:
    """For operations on the state machine itself: a version or alias ARN names none (AWS)."""
    if ref.qualified:
        raise StateMachineDoesNotExist(f"State Machine Does Not Exist: '{ref.arn}'")
    return machine(store, ref)


def refuse_deleting(record: StateMachineRecord) -> None:
    """Operations that would change or run a state machine being deleted are refused."""
    if record.status == DELETING:
        raise StateMachineDeleting(f"State Machine Is Being Deleted: '{record.arn}'")


def version(store: Store, ref: arns.MachineRef) -> tuple[StateMachineRecord, Version]:
    """The state machine and the version `ref` names; StateMachineDoesNotExist if either is missing."""
    record = machine(store, ref)
    found = record.versions.get(ref.version) if ref.version is not None else None
    if found is None:
        raise StateMachineDoesNotExist(f"State Machine Does Not Exist: '{ref.arn}'")
    return record, found
