"""Domains and their registered workflow and activity types: register, deprecate, undeprecate,
delete, describe and list, with SWF's faults. One `Registry` per account and region."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from msgspec import Struct, field

from sfn_emulator.swf.faults import (
    DomainAlreadyExistsFault,
    DomainDeprecatedFault,
    TypeAlreadyExistsFault,
    TypeDeprecatedFault,
    TypeNotDeprecatedFault,
    UnknownResourceFault,
    type_label,
)

REGISTERED, DEPRECATED = "REGISTERED", "DEPRECATED"
WORKFLOW, ACTIVITY = "WorkflowType", "ActivityType"
# The defaults each kind of type may be registered with (RegisterWorkflowType, RegisterActivityType).
TYPE_DEFAULTS = {
    WORKFLOW: ("defaultTaskStartToCloseTimeout", "defaultExecutionStartToCloseTimeout", "defaultTaskList",
               "defaultTaskPriority", "defaultChildPolicy", "defaultLambdaRole"),
    ACTIVITY: ("defaultTaskStartToCloseTimeout", "defaultTaskHeartbeatTimeout", "defaultTaskList",
               "defaultTaskPriority", "defaultTaskScheduleToStartTimeout", "defaultTaskScheduleToCloseTimeout"),
}


class RegisteredType(Struct, eq=False):
    kind: str  # WORKFLOW or ACTIVITY
    name: str
    version: str
    description: str | None
    configuration: dict[str, Any]
    creation_date: datetime
    status: str = REGISTERED
    deprecation_date: datetime | None = None

    @property
    def label(self) -> str:
        return type_label(self.kind, self.name, self.version)

    @property
    def reference(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version}

    def info(self) -> dict[str, Any]:
        info: dict[str, Any] = {("workflowType" if self.kind == WORKFLOW else "activityType"): self.reference,
                                "status": self.status, "creationDate": self.creation_date}
        if self.description is not None:
            info["description"] = self.description
        if self.deprecation_date is not None:
            info["deprecationDate"] = self.deprecation_date
        return info

    def default(self, key: str) -> Any:
        return self.configuration.get(key)


class Domain(Struct, eq=False):
    name: str
    arn: str
    description: str | None
    retention_days: str
    status: str = REGISTERED
    tags: dict[str, str] = field(default_factory=dict)
    types: dict[tuple[str, str, str], RegisteredType] = field(default_factory=dict)

    def info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"name": self.name, "status": self.status, "arn": self.arn}
        if self.description is not None:
            info["description"] = self.description
        return info

    def find_type(self, kind: str, reference: dict[str, str]) -> RegisteredType | None:
        return self.types.get((kind, reference["name"], reference["version"]))

    def get_type(self, kind: str, reference: dict[str, str]) -> RegisteredType:
        found = self.find_type(kind, reference)
        if found is None:
            raise UnknownResourceFault(f"Unknown type: {type_label(kind, reference['name'], reference['version'])}")
        return found


class Registry:
    """The domains of one account and region."""

    def __init__(self, account: str, region: str, partition: str) -> None:
        self.account = account
        self.region = region
        self.partition = partition
        self.domains: dict[str, Domain] = {}

    # -- domains ---------------------------------------------------------------------------------
    def register_domain(self, params: dict[str, Any]) -> Domain:
        name = params["name"]
        if name in self.domains:
            raise DomainAlreadyExistsFault(name)
        arn = f"arn:{self.partition}:swf:{self.region}:{self.account}:/domain/{name}"
        domain = Domain(name, arn, params.get("description"), params["workflowExecutionRetentionPeriodInDays"],
                        tags={tag["key"]: tag.get("value", "") for tag in params.get("tags", [])})
        self.domains[name] = domain
        return domain

    def domain(self, name: str, *, registered: bool = False) -> Domain:
        """The domain `name`; with `registered`, a deprecated one is unknown too (as SWF answers
        for operations that create work in a domain)."""
        domain = self.domains.get(name)
        if domain is None or (registered and domain.status != REGISTERED):
            raise UnknownResourceFault(f"Unknown domain: {name}")
        return domain

    def deprecate_domain(self, name: str) -> None:
        domain = self.domain(name)
        if domain.status == DEPRECATED:
            raise DomainDeprecatedFault(name)
        domain.status = DEPRECATED

    def undeprecate_domain(self, name: str) -> None:
        domain = self.domain(name)
        if domain.status == REGISTERED:
            raise DomainAlreadyExistsFault(name)
        domain.status = REGISTERED

    def domain_by_arn(self, arn: str) -> Domain:
        for domain in self.domains.values():
            if domain.arn == arn:
                return domain
        raise UnknownResourceFault(f"Unknown resource: {arn}")

    # -- types -----------------------------------------------------------------------------------
    def register_type(self, kind: str, params: dict[str, Any], now: datetime) -> RegisteredType:
        domain = self.domain(params["domain"], registered=True)
        key = (kind, params["name"], params["version"])
        if key in domain.types:
            raise TypeAlreadyExistsFault(type_label(*key))
        configuration = {name: params[name] for name in TYPE_DEFAULTS[kind] if name in params}
        registered = RegisteredType(kind, params["name"], params["version"], params.get("description"),
                                    configuration, now)
        domain.types[key] = registered
        return registered

    def deprecate_type(self, kind: str, params: dict[str, Any], now: datetime) -> None:
        registered = self._type(kind, params)
        if registered.status == DEPRECATED:
            raise TypeDeprecatedFault(registered.label)
        registered.status, registered.deprecation_date = DEPRECATED, now

    def undeprecate_type(self, kind: str, params: dict[str, Any]) -> None:
        registered = self._type(kind, params)
        if registered.status == REGISTERED:
            raise TypeAlreadyExistsFault(registered.label)
        registered.status, registered.deprecation_date = REGISTERED, None

    def delete_type(self, kind: str, params: dict[str, Any]) -> None:
        registered = self._type(kind, params)
        if registered.status != DEPRECATED:
            raise TypeNotDeprecatedFault(registered.label)
        del self.domain(params["domain"]).types[(kind, registered.name, registered.version)]

    def describe_type(self, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        registered = self._type(kind, params)
        return {"typeInfo": registered.info(), "configuration": dict(registered.configuration)}

    def list_types(self, kind: str, params: dict[str, Any]) -> list[RegisteredType]:
        """The types of the status asked, named `name` if given, in name then version order."""
        domain = self.domain(params["domain"])
        found = [registered for (of_kind, _, _), registered in domain.types.items()
                 if of_kind == kind and registered.status == params["registrationStatus"]
                 and params.get("name") in (None, registered.name)]
        return sorted(found, key=lambda registered: (registered.name, registered.version))

    def _type(self, kind: str, params: dict[str, Any]) -> RegisteredType:
        member = "workflowType" if kind == WORKFLOW else "activityType"
        return self.domain(params["domain"]).get_type(kind, params[member])
