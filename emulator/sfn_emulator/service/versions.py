"""State machine versions: PublishStateMachineVersion, ListStateMachineVersions, DeleteStateMachineVersion.

AWS's rules (API reference, PublishStateMachineVersion and UpdateStateMachine): a version freezes
one revision; publishing a revision that already has a version returns that version, whatever
description comes with it (the idempotency check is on the state machine and the revision, and
UpdateStateMachine with `publish` follows the same rule); version numbers only grow (a deleted
number is never reused); a version that an alias routes to cannot be deleted. A `revisionId`
must name the current revision, or be `INITIAL` while the machine has never been changed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sfn_emulator.service import arns, lookups, quotas
from sfn_emulator.service.errors import ConflictException
from sfn_emulator.service.locking import operation
from sfn_emulator.service.pagination import paginate
from sfn_emulator.service.registry import Registry
from sfn_emulator.service.store import StateMachineRecord, Store, Version

_INITIAL_REVISION = "INITIAL"  # names the revision of CreateStateMachine, which has no revisionId


def publish(record: StateMachineRecord, description: str | None, now: datetime) -> Version:
    """The version of the current revision: the existing one, or a new one numbered next."""
    existing = record.version_for(record.current)
    if existing is not None:
        return existing
    quotas.check_new_version(record)
    number = record.next_version
    record.next_version += 1
    version = Version(f"{record.arn}:{number}", number, record.current, description, now)
    record.versions[number] = version
    return version


class Versions:
    """The version operations, over the registry's stores."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    @operation
    def publish_state_machine_version(
        self, store: Store, *, stateMachineArn: str, revisionId: str | None = None, description: str | None = None
    ) -> dict[str, Any]:
        record = lookups.unqualified_machine(store, arns.state_machine(stateMachineArn))
        lookups.refuse_deleting(record)
        current_revision = record.current.revision_id or _INITIAL_REVISION
        if revisionId is not None and revisionId != current_revision:
            raise ConflictException(
                f"Failed to publish the State Machine version for revision {revisionId}. "
                f"The current State Machine revision is {current_revision}."
            )
        version = publish(record, description, self.registry.now())
        return {"creationDate": version.creation_date, "stateMachineVersionArn": version.arn}

    @operation
    def list_state_machine_versions(
        self, store: Store, *, stateMachineArn: str, nextToken: str | None = None, maxResults: int | None = None
    ) -> dict[str, Any]:
        ref = arns.state_machine(stateMachineArn)
        record = store.state_machines.get(ref.base_arn)
        if record is None or ref.qualified:
            # ListStateMachineVersions has no "does not exist" error: AWS answers InvalidArn.
            raise arns.malformed(stateMachineArn)
        newest_first = sorted(record.versions.values(), key=lambda version: -version.number)
        page, token = paginate(
            newest_first, lambda version: -version.number,
            scope=f"versions:{record.arn}", max_results=maxResults, next_token=nextToken, now=self.registry.now(),
        )
        items = [{"stateMachineVersionArn": v.arn, "creationDate": v.creation_date} for v in page]
        return {"stateMachineVersions": items, **({"nextToken": token} if token else {})}

    @operation
    def delete_state_machine_version(self, store: Store, *, stateMachineVersionArn: str) -> dict[str, Any]:
        ref = arns.state_machine(stateMachineVersionArn)
        if ref.version is None:
            raise arns.malformed(stateMachineVersionArn)
        record = store.state_machines.get(ref.base_arn)
        if record is None or ref.version not in record.versions:
            return {}  # deleting what is not there succeeds (AWS)
        routing_aliases = [
            alias.name for alias in record.aliases.values()
            if any(route["stateMachineVersionArn"] == stateMachineVersionArn for route in alias.routing)
        ]
        if routing_aliases:
            raise ConflictException(
                "Version to be deleted must not be referenced by an alias. "
                f"Current list of aliases referencing this version: [{', '.join(routing_aliases)}]"
            )
        del record.versions[ref.version]
        return {}
