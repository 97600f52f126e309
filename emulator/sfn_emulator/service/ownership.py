"""Accounts are walls: a request acts only on the Step Functions resources of the caller's account.

AWS authorizes a request (IAM) before the service reads it, and Step Functions has no
resource-based policies, so an identity of account B may not act on a resource of account A
whatever its own policies allow. IAM's answer is AccessDeniedException (HTTP 400 on this
protocol), "User: <caller> is not authorized to perform: states:<Action> on resource: <ARN>
because no resource-based policy allows the states:<Action> action". The emulator has no IAM
users, so the caller is named as its account's root.

The check reads every Step Functions ARN a request names, at any depth (`stateMachineArn`,
`executionArn`, `resourceArn`, an alias's `routingConfiguration[].stateMachineVersionArn`, ...),
so every operation shares one rule. ARNs of other services (`roleArn`, log groups) are not ours
to judge. A resource of the caller's own account in another region is simply unknown to the
regional endpoint the request reached: each operation answers as for an ARN that names nothing.
"""

from __future__ import annotations

from typing import Any, Iterator

from sfn_emulator.asl.arns import Arn, split_arn
from sfn_emulator.service.errors import AccessDeniedException


def check_owned(account: str, operation: str, params: dict[str, Any]) -> None:
    """Refuse the request if it names a Step Functions resource of another account."""
    for arn in _states_arns(params):
        if arn.account != account:
            action = f"states:{operation}"
            raise AccessDeniedException(
                f"User: arn:aws:iam::{account}:root is not authorized to perform: {action} on resource: {arn.text} "
                f"because no resource-based policy allows the {action} action"
            )


def in_scope(arn: str, account: str, region: str) -> bool:
    """Whether a Step Functions ARN belongs to (account, region)."""
    fields = split_arn(arn)
    return fields is not None and fields.region == region and fields.account == account


def _states_arns(value: Any, key: str = "") -> Iterator[Arn]:
    if isinstance(value, dict):
        for member, item in value.items():
            yield from _states_arns(item, member)
    elif isinstance(value, list):
        for item in value:
            yield from _states_arns(item, key)
    elif isinstance(value, str) and key.endswith("Arn"):
        arn = split_arn(value)
        if arn is not None and arn.service == "states":
            yield arn
