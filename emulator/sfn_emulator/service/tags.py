"""Tags on state machines and activities: TagResource, UntagResource, ListTagsForResource.

Versions, aliases and executions carry no tags: AWS answers ResourceNotFound for them.
"""

from __future__ import annotations

from typing import Any

from sfn_emulator.service import arns
from sfn_emulator.service.errors import ResourceNotFound, TooManyTags, ValidationException
from sfn_emulator.service.locking import operation
from sfn_emulator.service.registry import Registry
from sfn_emulator.service.store import ActivityRecord, StateMachineRecord, Store

MAX_TAGS = 50  # per resource (AWS quota)
_TOO_MANY_TAGS = (
    "You've exceeded the number of tags allowed for a resource. "
    "See the Limits Topic in the AWS Step Functions Developer Guide."
)


def tag_dict(tags: list[dict[str, str]], resource_arn: str, existing: dict[str, str] | None = None) -> dict[str, str]:
    """`existing` with `tags` added (a repeated key takes the later value); TooManyTags past 50 on the
    resource `resource_arn`.

    botocore's model leaves a Tag's members optional; a tag needs a key, and a missing value is empty.
    """
    missing = [f"Value null at 'tags.{index}.member.key' failed to satisfy constraint: Member must not be null"
               for index, tag in enumerate(tags, start=1) if tag.get("key") is None]
    if missing:
        count = f"{len(missing)} validation error{'s' if len(missing) > 1 else ''} detected: "
        raise ValidationException(count + "; ".join(missing))
    merged = dict(existing or {})
    merged.update((tag["key"], tag.get("value") or "") for tag in tags)
    if len(merged) > MAX_TAGS:
        raise TooManyTags(_TOO_MANY_TAGS, resource_name=resource_arn)
    return merged


def _tagged(store: Store, resource_arn: str) -> StateMachineRecord | ActivityRecord:
    arn = arns.taggable(resource_arn)
    resources = store.state_machines if arn.resource_type == arns.STATE_MACHINE else store.activities
    resource = resources.get(resource_arn)
    if resource is None:
        raise ResourceNotFound(f"Resource not found: '{resource_arn}'", resource_name=resource_arn)
    return resource


class Tags:
    """The tag operations, over the registry's stores."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    @operation
    def tag_resource(self, store: Store, *, resourceArn: str, tags: list[dict[str, str]]) -> dict[str, Any]:
        resource = _tagged(store, resourceArn)
        resource.tags = tag_dict(tags, resourceArn, resource.tags)
        return {}

    @operation
    def untag_resource(self, store: Store, *, resourceArn: str, tagKeys: list[str]) -> dict[str, Any]:
        resource = _tagged(store, resourceArn)
        resource.tags = {key: value for key, value in resource.tags.items() if key not in set(tagKeys)}
        return {}

    @operation
    def list_tags_for_resource(self, store: Store, *, resourceArn: str) -> dict[str, Any]:
        resource = _tagged(store, resourceArn)
        return {"tags": [{"key": key, "value": value} for key, value in resource.tags.items()]}
