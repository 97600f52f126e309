"""Amazon Resource Names, read one way everywhere: `arn:<partition>:<service>:<region>:<account>:<resource>`.

A Task's `Resource`, the ARNs clients send to the API and the ARNs the emulator hands out share this
shape (AWS general reference, "Amazon Resource Names"): six colon-separated fields, the last of which
(the resource, `type:name[:qualifier]` or `type/name`) may contain further colons. What a field may
hold is for each reader to check; this module only splits.
"""

from __future__ import annotations

from functools import lru_cache

from msgspec import Struct

_FIELDS = 6


# gc=False: a record of strings, numbers and times (and tuples of them) can never be part of a reference
# cycle, so the cycle collector need not track it.
class Arn(Struct, frozen=True, gc=False):
    text: str
    partition: str
    service: str
    region: str
    account: str
    resource: str  # everything after the account, colons included

    @property
    def resource_parts(self) -> tuple[str, ...]:
        """The resource split at its colons: (`type`, `name`, `qualifier`...)."""
        return tuple(self.resource.split(":"))

    @property
    def resource_type(self) -> str:
        """The resource's first part (`function`, `stateMachine`, `execution`...), or the service action in
        an integration ARN (`arn:aws:states:::lambda:invoke` -> `lambda`)."""
        return self.resource.split(":", 1)[0]


@lru_cache(maxsize=4096)
def split_arn(text: str) -> Arn | None:
    """The fields of `text`, or None when it is not `arn:` followed by five more colon-separated fields."""
    fields = text.split(":", _FIELDS - 1)
    if len(fields) < _FIELDS or fields[0] != "arn":
        return None
    _, partition, service, region, account, resource = fields
    return Arn(text, partition, service, region, account, resource)
