"""Encryption configuration of state machines and activities, as AWS keeps it.

AWS's rules (API reference, `EncryptionConfiguration` and `InvalidEncryptionConfiguration`):
- data is always encrypted at rest; with no configuration given, AWS owns the key, and
  DescribeStateMachine, DescribeStateMachineForExecution and DescribeActivity say so with
  `{"type": "AWS_OWNED_KEY"}` (as recorded on AWS);
- `CUSTOMER_MANAGED_KMS_KEY` without a `kmsKeyId` is refused with `InvalidEncryptionConfiguration`
  (the period's range, 60 to 900 seconds, is the service model's: the wire refuses it first).
  Nothing else is documented as refused, so nothing else is.
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
    if given.get("type") == CUSTOMER_MANAGED_KMS_KEY and not given.get("kmsKeyId"):
        raise InvalidEncryptionConfiguration(
            f"Invalid Encryption Configuration: kmsKeyId must be specified for {CUSTOMER_MANAGED_KMS_KEY} type."
        )
    return dict(given)
