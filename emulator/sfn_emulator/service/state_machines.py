"""State machines: CreateStateMachine, DescribeStateMachine, UpdateStateMachine, DeleteStateMachine,
ListStateMachines.

AWS's rules kept here:
- A loggingConfiguration is checked and completed by `logging_configuration`'s rules.
- CreateStateMachine is idempotent: a repeat with the same name, definition, type, logging,
  tracing and encryption configuration, publish and versionDescription returns the existing
  machine (its roleArn and tags are then ignored, as AWS documents); any other difference is
  StateMachineAlreadyExists.
- revisionId is absent until an UpdateStateMachine changes something; an update that changes
  nothing keeps the revision.
- DeleteStateMachine is idempotent; while executions run the machine is DELETING, and it goes
  when they have ended.
"""

from __future__ import annotations

from typing import Any

import msgspec

from sfn_emulator import dialects
from sfn_emulator.asl.model import distributed_map_processors
from sfn_emulator.process.randomness import Randomness
from sfn_emulator.service import arns, lookups, quotas
from sfn_emulator.service.definitions import CompiledDefinition, compile_definition, model_of
from sfn_emulator.service.encryption import encryption_configuration
from sfn_emulator.service.errors import (
    ApiError,
    MissingRequiredParameter,
    StateMachineAlreadyExists,
    StateMachineDoesNotExist,
    ValidationException,
)
from sfn_emulator.service.locking import operation, prepared_operation
from sfn_emulator.service.logging_configuration import LogGroups, logging_configuration
from sfn_emulator.service.names import check_name
from sfn_emulator.service.pagination import paginate
from sfn_emulator.service.registry import Registry
from sfn_emulator.service.store import ACTIVE, DELETING, Revision, StateMachineRecord, Store
from sfn_emulator.service.tags import tag_dict
from sfn_emulator.service.versions import publish as publish_version

STANDARD = "STANDARD"


def tracing_configuration(given: dict[str, Any] | None) -> dict[str, Any]:
    return {"enabled": bool((given or {}).get("enabled"))}


def _check_version_description(publish_flag: bool | None, version_description: str | None) -> None:
    if version_description is not None and not publish_flag:
        raise ValidationException("Version description can only be set when publish is true")


METADATA_ONLY = "METADATA_ONLY"


def describe_revision(name: str, revision: Revision, included_data: str | None) -> dict[str, Any]:
    """The members DescribeStateMachine and DescribeStateMachineForExecution share. Asked for
    METADATA_ONLY, the definition is `{}` (API reference: "If called with includedData =
    METADATA_ONLY, the returned definition will be {}"; what a caller without kms:Decrypt asks for)."""
    described: dict[str, Any] = {
        "name": name,
        "definition": "{}" if included_data == METADATA_ONLY else revision.definition,
        "roleArn": revision.role_arn,
        "loggingConfiguration": revision.logging_configuration,
        "tracingConfiguration": revision.tracing_configuration,
        "encryptionConfiguration": revision.encryption_configuration,
    }
    if revision.revision_id is not None:
        described["revisionId"] = revision.revision_id
    return described


class StateMachines:
    """The state machine operations, over the registry's stores; a loggingConfiguration's log group
    is looked for in `log_groups` (None: not looked for), revision ids come from `ids`."""

    def __init__(self, registry: Registry, log_groups: LogGroups | None, ids: Randomness) -> None:
        self.registry = registry
        self._log_groups = log_groups
        self._ids = ids

    def _compile_created(self, store: Store, params: dict[str, Any]) -> CompiledDefinition | None:
        """CreateStateMachine's definition compiled outside the lock (its type and tags are the request's)."""
        definition = params.get("definition")
        if not isinstance(definition, str):
            return None
        dialect = None
        for tag in params.get("tags") or []:
            if isinstance(tag, dict) and tag.get("key") == dialects.DIALECT_TAG:
                dialect = tag.get("value")
        return compile_definition(definition, params.get("type") or STANDARD, dialect)

    def _compile_updated(self, store: Store, params: dict[str, Any]) -> CompiledDefinition | None:
        """UpdateStateMachine's definition compiled outside the lock, by the machine's type and tags then."""
        definition, arn = params.get("definition"), params.get("stateMachineArn")
        if not isinstance(definition, str) or not isinstance(arn, str):
            return None
        try:
            with self.registry.locked(store):
                record = lookups.unqualified_machine(store, arns.state_machine(arn))
                machine_type, dialect = record.type, record.tags.get(dialects.DIALECT_TAG)
        except ApiError:  # the operation refuses it in its own order
            return None
        return compile_definition(definition, machine_type, dialect)

    @prepared_operation(_compile_created)
    def create_state_machine(
        self,
        store: Store,
        *,
        name: str,
        definition: str,
        roleArn: str,
        type: str | None = None,
        loggingConfiguration: dict[str, Any] | None = None,
        tags: list[dict[str, str]] | None = None,
        tracingConfiguration: dict[str, Any] | None = None,
        publish: bool | None = None,
        versionDescription: str | None = None,
        encryptionConfiguration: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        _check_version_description(publish, versionDescription)
        check_name(name)
        arns.role(roleArn)
        machine_type = type or STANDARD
        logging = logging_configuration(loggingConfiguration, self._log_groups)
        tracing = tracing_configuration(tracingConfiguration)
        encryption = encryption_configuration(encryptionConfiguration)
        arn = arns.build(store.region, store.account, arns.STATE_MACHINE, name)
        tag_values = tag_dict(tags or [], arn)
        publishing = {"publish": bool(publish), "versionDescription": versionDescription}
        existing = store.state_machines.get(arn)
        if existing is not None:
            lookups.refuse_deleting(existing)
            current = existing.current
            same = (
                (current.definition, existing.type, current.logging_configuration, current.tracing_configuration,
                 current.encryption_configuration, existing.created_with)
                == (definition, machine_type, logging, tracing, encryption, publishing)
            )
            if not same:
                raise StateMachineAlreadyExists(f"State Machine Already Exists: '{arn}'")
            answer: dict[str, Any] = {"stateMachineArn": arn, "creationDate": existing.creation_date}
            first_version = existing.versions.get(1)
            if publish and first_version is not None:
                answer["stateMachineVersionArn"] = first_version.arn
            return answer

        machine = model_of(self.registry.prepared(), definition, machine_type, tag_values.get(dialects.DIALECT_TAG))
        quotas.check_new_state_machine(store)
        now = self.registry.now()
        revision = Revision(definition, machine, roleArn, logging, tracing, encryption, None, now, 0)
        record = StateMachineRecord(arn, name, machine_type, now, revision, publishing, tags=tag_values)
        store.state_machines[arn] = record
        answer = {"stateMachineArn": arn, "creationDate": now}
        if publish:
            answer["stateMachineVersionArn"] = publish_version(record, versionDescription, now).arn
        return answer

    @operation
    def describe_state_machine(
        self, store: Store, *, stateMachineArn: str, includedData: str | None = None
    ) -> dict[str, Any]:
        ref = arns.state_machine(stateMachineArn, allow_label=True)
        if ref.alias is not None:  # aliases have DescribeStateMachineAlias
            raise StateMachineDoesNotExist(f"State Machine Does Not Exist: '{ref.arn}'")
        if "/" in ref.name and ref.version is None:
            return self._describe_map_machine(store, ref)
        if ref.version is not None:
            record, version = lookups.version(store, ref)
            revision, creation_date, description = version.revision, version.creation_date, version.description
        else:
            record = lookups.machine(store, ref)
            revision, creation_date, description = record.current, record.creation_date, None
        described = {
            "stateMachineArn": ref.arn,
            "status": record.status,
            "type": record.type,
            "creationDate": creation_date,
            **describe_revision(record.name, revision, includedData),
        }
        if description is not None:
            described["description"] = description
        return described

    def _describe_map_machine(self, store: Store, ref: arns.MachineRef) -> dict[str, Any]:
        """A qualified `...:stateMachine:NAME/LABEL` (API reference, DescribeStateMachine): the state machine
        a Distributed Map labelled LABEL runs its children as; described as its parent, with the `label`."""
        name, label = ref.name.split("/", 1)
        record = store.state_machines.get(ref.base_arn.rsplit(":", 1)[0] + ":" + name)
        if record is None or label not in distributed_map_processors(record.current.machine):
            raise StateMachineDoesNotExist(f"State Machine Does Not Exist: '{ref.arn}'")
        return {
            "stateMachineArn": ref.arn,
            "status": record.status,
            "type": record.type,
            "creationDate": record.creation_date,
            # includedData does not apply: AWS decrypts the whole definition to find the Map's (API reference)
            **describe_revision(record.name, record.current, None),
            "label": label,
        }

    @prepared_operation(_compile_updated)
    def update_state_machine(
        self,
        store: Store,
        *,
        stateMachineArn: str,
        definition: str | None = None,
        roleArn: str | None = None,
        loggingConfiguration: dict[str, Any] | None = None,
        tracingConfiguration: dict[str, Any] | None = None,
        publish: bool | None = None,
        versionDescription: str | None = None,
        encryptionConfiguration: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        record = lookups.unqualified_machine(store, arns.state_machine(stateMachineArn))
        lookups.refuse_deleting(record)
        if (definition is None and roleArn is None and loggingConfiguration is None and tracingConfiguration is None
                and encryptionConfiguration is None):
            raise MissingRequiredParameter(
                "Either the definition, the role ARN, the LoggingConfiguration, or the TracingConfiguration must be specified"
            )
        _check_version_description(publish, versionDescription)
        current = record.current
        changes: dict[str, Any] = {}
        if roleArn is not None:
            changes["role_arn"] = arns.role(roleArn)
        if loggingConfiguration is not None:
            changes["logging_configuration"] = logging_configuration(loggingConfiguration, self._log_groups)
        if tracingConfiguration is not None:
            changes["tracing_configuration"] = tracing_configuration(tracingConfiguration)
        if encryptionConfiguration is not None:
            changes["encryption_configuration"] = encryption_configuration(encryptionConfiguration)
        if definition is not None:
            changes["machine"] = model_of(self.registry.prepared(), definition, record.type,
                                          record.tags.get(dialects.DIALECT_TAG))
            changes["definition"] = definition
        now = self.registry.now()
        changed = any(getattr(current, field) != value for field, value in changes.items() if field != "machine")
        if publish and (changed or record.version_for(current) is None):
            quotas.check_new_version(record)  # before the update: a refused request changes nothing
        if changed:
            record.current = msgspec.structs.replace(
                current, **changes, revision_id=self._ids.uuid(), update_date=now, number=current.number + 1
            )
        answer: dict[str, Any] = {"updateDate": now}
        if record.current.revision_id is not None:
            answer["revisionId"] = record.current.revision_id
        if publish:
            answer["stateMachineVersionArn"] = publish_version(record, versionDescription, now).arn
        return answer

    @operation
    def delete_state_machine(self, store: Store, *, stateMachineArn: str) -> dict[str, Any]:
        ref = arns.state_machine(stateMachineArn)
        if ref.qualified:
            raise ValidationException(
                f"Qualified state machine ARNs (versions, aliases) cannot be deleted with DeleteStateMachine: "
                f"'{stateMachineArn}'"
            )
        record = store.state_machines.get(ref.base_arn)
        if record is not None:
            record.status = DELETING
            store.finish_deletions()
        return {}

    @operation
    def list_state_machines(
        self, store: Store, *, maxResults: int | None = None, nextToken: str | None = None
    ) -> dict[str, Any]:
        active = sorted((r for r in store.state_machines.values() if r.status == ACTIVE), key=lambda r: r.name)
        page, token = paginate(
            active, lambda r: r.name, scope="stateMachines", max_results=maxResults, next_token=nextToken,
            now=self.registry.now(),
        )
        items = [
            {"stateMachineArn": r.arn, "name": r.name, "type": r.type, "creationDate": r.creation_date} for r in page
        ]
        return {"stateMachines": items, **({"nextToken": token} if token else {})}
