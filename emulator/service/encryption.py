"""Encryption configuration of state machines and activities, as AWS keeps it.

AWS's rules (API reference, `EncryptionConfiguration` and `InvalidEncryptionConfiguration`):
- data is always encrypted at rest; with no configuration given, AWS owns the key, and
  DescribeStateMachine, DescribeStateMachineForExecution and DescribeActivity say so with
  `{"type": "AWS_OWNED_KEY"}` (as recorded on AWS);
- `CUSTOMER_MANAGED_KMS_KEY` needs a `kmsKeyId`; `kmsKeyId` and `kmsDataKeyReusePeriodSeconds`
  apply only to customer managed keys. Anything else is refused with `InvalidEncryptionConfiguration`.
  (The period's range, 60 to 900 seconds, is the service model's: the wire refuses it first.)
"""

from __future__ import annotations

from typing import Any

from sfn_emulator.service.errors import InvalidEncryptionConfiguration

AWS_OWNED_KEY = "AWS_OWNED_KEY"
CUSTOMER_MANAGED_KMS_KEY = "CUSTOMER_MANAGED_KMS_KEY"


def encryption_configuration(given: dict[str, Any] | None) -> dict[str, Any]:
    """The configuration to keep and describe: the default AWS-owned key when none is given."""
    if given is None:
        return {"type": AWS_OWNED_KEY}
    kind = given.get("type")
    key_id = given.get("kmsKeyId")
    reuse_period = given.get("kmsDataKeyReusePeriodSeconds")
    if kind == CUSTOMER_MANAGED_KMS_KEY:
        if not key_id:
            raise InvalidEncryptionConfiguration(
                "Invalid Encryption Configuration: kmsKeyId must be specified for CUSTOMER_MANAGED_KMS_KEY type."
            )
        return dict(given)
    if key_id is not None or reuse_period is not None:
        raise InvalidEncryptionConfiguration(
            f"Invalid Encryption Configuration: kmsKeyId and kmsDataKeyReusePeriodSeconds apply only to "
            f"{CUSTOMER_MANAGED_KMS_KEY} type."
        )
    return {"type": AWS_OWNED_KEY}
