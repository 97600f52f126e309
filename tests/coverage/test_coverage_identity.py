"""A workflow is what it is, not where it ran: the same definition deployed in other accounts,
regions or partitions (the ARNs in it naming them), or run through a published version, is one
row of the coverage report; another definition under the same name is another row."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator


def order(partition: str, region: str, account: str, *, result: str = "express") -> dict[str, Any]:
    return {"StartAt": "Route", "States": {
        "Route": {"Type": "Choice", "Choices": [{"Variable": "$.express", "BooleanEquals": True, "Next": "Express"}],
                  "Default": "Standard"},
        "Express": {"Type": "Pass", "Result": result, "End": True,
                    "Parameters": {"topic": f"arn:{partition}:sns:{region}:{account}:orders",
                                   "role": f"arn:{partition}:iam::{account}:role/orders"}},
        "Standard": {"Type": "Pass", "End": True}}}


# (where each of two executions ran: (partition, region, account), and the second's definition
# differs in content) -> rows of the report
CASES = {
    "two accounts": ((("aws", "us-east-1", "111111111111"), ("aws", "us-east-1", "222222222222")), False, 1),
    "two regions": ((("aws", "us-east-1", "111111111111"), ("aws", "eu-west-1", "111111111111")), False, 1),
    "two partitions": ((("aws", "us-east-1", "111111111111"), ("aws-cn", "cn-north-1", "111111111111")), False, 1),
    "another content": ((("aws", "us-east-1", "111111111111"), ("aws", "us-east-1", "222222222222")), True, 2),
}


@pytest.mark.parametrize("places, other_content, rows", CASES.values(), ids=CASES.keys())
def test_where_a_definition_ran_does_not_split_its_row(places: tuple[tuple[str, str, str], ...], other_content: bool,
                                                       rows: int) -> None:
    with Emulator(Settings()) as emulator:
        for number, (partition, region, account) in enumerate(places):
            definition = order(partition, region, account, result="other" if other_content and number else "express")
            machine = emulator.service.create_state_machine(
                name="Order", definition=json.dumps(definition), roleArn=f"arn:aws:iam::{account}:role/r",
                account=account, region=region)["stateMachineArn"]
            emulator.service.start_execution(stateMachineArn=machine, input=json.dumps({"express": number == 0}),
                                             account=account, region=region)
        emulator.clock.run_until_idle()
        machines = emulator.coverage.json()["stateMachines"]
    assert [machine["name"] for machine in machines] == ["Order"] * rows
    if rows == 1:
        assert machines[0]["transitions"] == {"total": 4, "covered": 4, "missed": []}


def test_a_published_version_counts_for_its_machine() -> None:
    with Emulator(Settings()) as emulator:
        created = emulator.service.create_state_machine(
            name="Order", definition=json.dumps(order("aws", "us-east-1", "123456789012")),
            roleArn="arn:aws:iam::123456789012:role/r", publish=True)
        emulator.service.start_execution(stateMachineArn=created["stateMachineVersionArn"], input='{"express": true}')
        emulator.service.start_execution(stateMachineArn=created["stateMachineArn"], input='{"express": false}')
        emulator.clock.run_until_idle()
        [machine] = emulator.coverage.json()["stateMachines"]
    assert (machine["name"], machine["states"]["covered"], machine["states"]["total"]) == ("Order", 3, 3)
