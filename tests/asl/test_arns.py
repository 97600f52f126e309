"""One reading of ARNs: `split_arn` splits, and every reader of an ARN's fields agrees with it.

The table is fixtures/arns/split.json. The readers: the Task resource classifier
(`asl.task_targets.parse_resource`), the control plane's ARN checks (`service.arns.parse`), the
account walls (`service.ownership.in_scope`) and the console's scope (`console.views.scope_of`).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.asl.arns import split_arn
from sfn_emulator.asl.task_targets import parse_resource
from sfn_emulator.service import arns as service_arns
from sfn_emulator.service.errors import InvalidArn
from sfn_emulator.service.ownership import in_scope
from sfn_emulator.console.views import scope_of

CASES = json.loads((FIXTURES_ROOT / "arns" / "split.json").read_text())["cases"]
IDS = [case["text"] or "(empty)" for case in CASES]
ARNS = [case for case in CASES if case["fields"] is not None]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_split(case: dict[str, Any]) -> None:
    arn = split_arn(case["text"])
    if case["fields"] is None:
        assert arn is None
        return
    assert arn is not None
    assert [arn.partition, arn.service, arn.region, arn.account, arn.resource] == case["fields"]
    assert arn.resource_type == case["fields"][4].split(":")[0]


@pytest.mark.parametrize("case", ARNS, ids=[case["text"] for case in ARNS])
def test_every_reader_takes_region_and_account_from_the_same_fields(case: dict[str, Any]) -> None:
    partition, service, region, account, resource = case["fields"]
    text = case["text"]
    assert scope_of(text) == (account, region)
    assert in_scope(text, account, region)
    assert not in_scope(text, account + "0", region)
    task_resource = parse_resource(text)
    if task_resource.kind != "unknown":
        assert (task_resource.region, task_resource.account) == (region, account)
    if service == "states" and resource.split(":")[0]:
        read = service_arns.parse(text, (resource.split(":")[0],))
        assert (read.partition, read.region, read.account) == (partition, region, account)
        assert ":".join((read.resource_type, *read.resource)) == resource


@pytest.mark.parametrize("case", [case for case in CASES if case["fields"] is None], ids=lambda case: case["text"] or "(empty)")
def test_what_is_not_an_arn_is_refused_by_every_reader(case: dict[str, Any]) -> None:
    text = case["text"]
    assert parse_resource(text).kind == "unknown"
    assert not in_scope(text, "123456789012", "us-east-1")
    with pytest.raises(InvalidArn, match="Invalid ARN prefix"):
        service_arns.parse(text, ("stateMachine",))
    with pytest.raises(ValueError):
        scope_of(text)
