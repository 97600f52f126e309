"""State machine aliases: Create/Describe/Update/Delete/ListStateMachineAliases.

An alias routes executions to one or two versions of its state machine by weight (the weights
sum to 100). CreateStateMachineAlias is idempotent for the same description and routing.
DescribeStateMachineAlias always has an `updateDate`: the creation date until the first update
(as recorded on AWS). ListStateMachineAliases lists the most recently created first, and given a
version ARN, only the aliases that route to that version (API reference).
"""

from __future__ import annotations

import json
from typing import Any

from sfn_emulator.service import arns, lookups, quotas
from sfn_emulator.service.errors import (
    INVALID_ROUTING_CONFIGURATION,
    MISSING_REQUIRED_PARAMETER,
    ConflictException,
    InvalidArn,
    ResourceNotFound,
    StateMachineDoesNotExist,
    ValidationException,
    invalid_request,
)
from sfn_emulator.service.locking import operation
from sfn_emulator.service.names import check_alias_name
from sfn_emulator.service.pagination import paginate
from sfn_emulator.service.registry import Registry
from sfn_emulator.service.store import Alias, StateMachineRecord, Store

_NO_SUCH_ALIAS = "Request references a resource that does not exist."


def _invalid_routing(message: str) -> ValidationException:
    return invalid_request(message, INVALID_ROUTING_CONFIGURATION)


def _routing_machine(store: Store, routing: list[dict[str, Any]]) -> StateMachineRecord:
    """Check a routing configuration as AWS does; return the state machine its versions belong to."""
    version_arns = [route["stateMachineVersionArn"] for route in routing]
    received = f"[{', '.join(version_arns)}]"
    if len(set(version_arns)) < len(version_arns):
        raise _invalid_routing(
            f"Routing configuration must contain distinct state machine version ARNs. Received: {received}"
        )
    weights = [route["weight"] for route in routing]
    if sum(weights) != 100:
        raise _invalid_routing(f"Sum of routing configuration weights must equal 100. Received: {json.dumps(weights)}")
    records = []
    for version_arn in version_arns:
        try:
            ref = arns.state_machine(version_arn)
        except (InvalidArn, ValidationException):  # not a version ARN, or a labelled one
            ref = None
        record = store.state_machines.get(ref.base_arn) if ref is not None else None
        if record is None or ref.version not in record.versions:
            raise _invalid_routing(f"Routing configuration must contain state machine version ARNs. Received: {received}")
        records.append(record)
    if any(record is not records[0] for record in records):
        raise _invalid_routing(
            f"Routing configuration must contain versions of the same state machine. Received: {received}"
        )
    return records[0]


def _alias_ref(alias_arn: str) -> arns.MachineRef:
    ref = arns.state_machine(alias_arn)
    if ref.alias is None:
        raise arns.malformed(alias_arn)
    return ref


def _alias(store: Store, alias_arn: str) -> tuple[StateMachineRecord, Alias]:
    ref = _alias_ref(alias_arn)
    record = store.state_machines.get(ref.base_arn)
    alias = record.aliases.get(ref.alias) if record is not None and ref.alias is not None else None
    if record is None or alias is None:
        raise ResourceNotFound(_NO_SUCH_ALIAS, resource_name=alias_arn)
    return record, alias


class Aliases:
    """The alias operations, over the registry's stores."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    @operation
    def create_state_machine_alias(
        self, store: Store, *, name: str, routingConfiguration: list[dict[str, Any]], description: str | None = None
    ) -> dict[str, Any]:
        check_alias_name(name)
        record = _routing_machine(store, routingConfiguration)
        lookups.refuse_deleting(record)
        routing = [dict(route) for route in routingConfiguration]
        existing = record.aliases.get(name)
        if existing is not None:
            if existing.routing != routing or existing.description != description:
                raise ConflictException(
                    "Failed to create alias because an alias with the same name and a "
                    "different routing configuration already exists."
                )
            return {"stateMachineAliasArn": existing.arn, "creationDate": existing.creation_date}
        quotas.check_new_alias(record)
        now = self.registry.now()
        alias = Alias(f"{record.arn}:{name}", name, description, routing, now, store.next_sequence(), now)
        record.aliases[name] = alias
        return {"stateMachineAliasArn": alias.arn, "creationDate": alias.creation_date}

    @operation
    def describe_state_machine_alias(self, store: Store, *, stateMachineAliasArn: str) -> dict[str, Any]:
        _, alias = _alias(store, stateMachineAliasArn)
        described: dict[str, Any] = {
            "stateMachineAliasArn": alias.arn,
            "name": alias.name,
            "routingConfiguration": alias.routing,
            "creationDate": alias.creation_date,
            "updateDate": alias.update_date,
        }
        if alias.description is not None:
            described["description"] = alias.description
        return described

    @operation
    def update_state_machine_alias(
        self,
        store: Store,
        *,
        stateMachineAliasArn: str,
        description: str | None = None,
        routingConfiguration: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        _alias_ref(stateMachineAliasArn)
        if description is None and routingConfiguration is None:
            raise invalid_request("Either the description or the RoutingConfiguration must be specified",
                                  MISSING_REQUIRED_PARAMETER)
        record, alias = _alias(store, stateMachineAliasArn)
        lookups.refuse_deleting(record)
        if routingConfiguration is not None:
            if _routing_machine(store, routingConfiguration) is not record:
                raise _invalid_routing(
                    "Routing configuration must contain versions of the alias's state machine. "
                    f"Received: [{', '.join(route['stateMachineVersionArn'] for route in routingConfiguration)}]"
                )
            alias.routing = [dict(route) for route in routingConfiguration]
        if description is not None:
            alias.description = description
        alias.update_date = self.registry.now()
        return {"updateDate": alias.update_date}

    @operation
    def delete_state_machine_alias(self, store: Store, *, stateMachineAliasArn: str) -> dict[str, Any]:
        ref = _alias_ref(stateMachineAliasArn)
        record = store.state_machines.get(ref.base_arn)
        if record is not None and ref.alias is not None:
            record.aliases.pop(ref.alias, None)  # deleting what is not there succeeds (AWS)
        return {}

    @operation
    def list_state_machine_aliases(
        self, store: Store, *, stateMachineArn: str, nextToken: str | None = None, maxResults: int | None = None
    ) -> dict[str, Any]:
        ref = arns.state_machine(stateMachineArn)
        if ref.alias is not None:  # an alias has no aliases
            raise StateMachineDoesNotExist(f"State Machine Does Not Exist: '{ref.arn}'")
        record = lookups.version(store, ref)[0] if ref.version is not None else lookups.machine(store, ref)
        lookups.refuse_deleting(record)
        listed = [alias for alias in record.aliases.values()
                  if ref.version is None or any(route["stateMachineVersionArn"] == ref.arn for route in alias.routing)]
        newest_first = sorted(listed, key=lambda alias: -alias.sequence)
        page, token = paginate(
            newest_first, lambda alias: -alias.sequence,
            scope=f"aliases:{ref.arn}", max_results=maxResults, next_token=nextToken, now=self.registry.now(),
        )
        items = [{"stateMachineAliasArn": alias.arn, "creationDate": alias.creation_date} for alias in page]
        return {"stateMachineAliases": items, **({"nextToken": token} if token else {})}
