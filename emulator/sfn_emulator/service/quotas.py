"""The resource quotas the control plane enforces, with the error AWS names for each.

AWS's rules (Step Functions service quotas; API reference of each operation):
- 10,000 state machines and 10,000 activities per account and region: creating one more is
  `StateMachineLimitExceeded` / `ActivityLimitExceeded` (a machine being deleted still counts);
- 1000 versions per state machine ("You can publish up to 1000 versions for each state machine.
  You must manually delete unused versions", PublishStateMachineVersion) and 100 aliases per state
  machine (CreateStateMachineAlias): one more is `ServiceQuotaExceededException`.
Each check runs only where a new resource would be made: an idempotent repeat that returns an
existing one is answered whatever the count. The messages of the first two are the API reference's
descriptions of those errors; the others are ours.
"""

from __future__ import annotations

from sfn_emulator.service.errors import (
    ActivityLimitExceeded,
    ServiceQuotaExceededException,
    StateMachineLimitExceeded,
)
from sfn_emulator.service.store import StateMachineRecord, Store

MAX_STATE_MACHINES = 10_000  # per account and region
MAX_ACTIVITIES = 10_000  # per account and region
MAX_VERSIONS = 1000  # per state machine
MAX_ALIASES = 100  # per state machine


def check_new_state_machine(store: Store) -> None:
    if len(store.state_machines) >= MAX_STATE_MACHINES:
        raise StateMachineLimitExceeded(
            "The maximum number of state machines has been reached. "
            "Existing state machines must be deleted before a new state machine can be created."
        )


def check_new_activity(store: Store) -> None:
    if len(store.activities) >= MAX_ACTIVITIES:
        raise ActivityLimitExceeded(
            "The maximum number of activities has been reached. "
            "Existing activities must be deleted before a new activity can be created."
        )


def check_new_version(record: StateMachineRecord) -> None:
    if len(record.versions) >= MAX_VERSIONS:
        raise ServiceQuotaExceededException(
            f"The state machine '{record.arn}' has {len(record.versions)} versions, the most it may have "
            f"({MAX_VERSIONS}): delete unused versions with DeleteStateMachineVersion before publishing another"
        )


def check_new_alias(record: StateMachineRecord) -> None:
    if len(record.aliases) >= MAX_ALIASES:
        raise ServiceQuotaExceededException(
            f"The state machine '{record.arn}' has {len(record.aliases)} aliases, the most it may have "
            f"({MAX_ALIASES}): delete unused aliases with DeleteStateMachineAlias before creating another"
        )
