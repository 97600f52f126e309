"""Rules and schedules of a loaded stack start its machines on the clock: a SAM state machine's
`Schedule`, `ScheduleV2` and `EventBridgeRule` events (translated by SAM into EventBridge rules and
Scheduler schedules) and a plain `AWS::Events::Rule`."""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta

import pytest
from helpers.eventbridge_cloud import START
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.config import Settings
from sfn_emulator.resources.aws.reset import reset_moto_backends
from sfn_emulator.runtime import Emulator

TEMPLATE = FIXTURES_ROOT / "eventbridge" / "scheduled-sam.yaml"
ACCOUNT = "330000009999"


def test_a_sam_machine_is_started_by_its_schedules_and_its_event_rule() -> None:
    pytest.importorskip("samtranslator")
    with Emulator(Settings(clock="manual", clock_start=START, account=ACCOUNT)) as emulator:
        try:
            stack = emulator.load_stack(TEMPLATE)
            assert stack.unresolved == {}
            machine = stack.state_machines["Report"].arn
            events = emulator.aws.resource.backends.client("events", account=ACCOUNT, region="us-east-1")
            events.put_events(Entries=[{"Source": "shop.orders", "DetailType": "OrderPlaced",
                                        "Detail": json.dumps({"id": "o-1"})}])
            emulator.clock.advance(timedelta(days=2))
            assert emulator.clock.run_until_idle(60)
            service = emulator.service
            runs = service.list_executions(stateMachineArn=machine, account=ACCOUNT)["executions"]
            inputs = Counter(json.dumps(json.loads(service.describe_execution(executionArn=run["executionArn"],
                                                                              account=ACCOUNT)["input"]), sort_keys=True)
                             for run in runs)
            assert inputs == {'{"by": "rule"}': 2, '{"by": "scheduler"}': 2, '{"by": "plain rule"}': 4, '{"id": "o-1"}': 1}
        finally:
            reset_moto_backends(ACCOUNT)
