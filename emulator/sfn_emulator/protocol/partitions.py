"""The AWS partition of a region: the second field of every ARN the emulator makes.

AWS's partitions (AWS General Reference, "Amazon Resource Names"): `aws-cn` for the China
regions (cn-*), `aws-us-gov` for GovCloud (us-gov-*), `aws-iso` for us-iso-*, `aws-iso-b` for
us-isob-*, `aws-iso-e` for eu-isoe-*, `aws-iso-f` for us-isof-*, and `aws` for every other region.
"""

from __future__ import annotations

# Longest prefixes first would not matter: no prefix here is a prefix of another.
_PARTITIONS_BY_REGION_PREFIX = (
    ("cn-", "aws-cn"),
    ("us-gov-", "aws-us-gov"),
    ("us-iso-", "aws-iso"),
    ("us-isob-", "aws-iso-b"),
    ("eu-isoe-", "aws-iso-e"),
    ("us-isof-", "aws-iso-f"),
)


def partition_for(region: str) -> str:
    """The partition `region` belongs to."""
    for prefix, partition in _PARTITIONS_BY_REGION_PREFIX:
        if region.startswith(prefix):
            return partition
    return "aws"
