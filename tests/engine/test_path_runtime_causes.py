"""Every path-taking field at run time, in every state type that has it (fixtures/paths/runtime_causes.json):
a definite path whose target is missing, or a path selecting a value its field cannot take, fails the
state with AWS's error and the cause worded for that field. Run in-process here, and over HTTP with
boto3 in tests/api/test_paths_and_limits_http.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_harness import Harness
from helpers.paths import FIXTURES_ROOT

FIXTURE = FIXTURES_ROOT / "paths" / "runtime_causes.json"
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
ECHO = "arn:aws:lambda:us-east-1:111111111111:function:echo"


@pytest.fixture(scope="module")
def harness() -> Any:
    with Harness(functions={ECHO: "identity"}) as running:
        yield running


def test_the_table_covers_every_path_taking_field() -> None:
    """The table names each field AWS evaluates as a path (a guard against a field left out)."""
    fields = ("InputPath", "OutputPath", "Parameters", "ItemSelector", "ResultSelector", "Assign", "Credentials",
              "Intrinsic argument", "Context Object", "variable", "ItemsPath", "SecondsPath", "TimestampPath",
              "TimeoutSecondsPath", "HeartbeatSecondsPath", "MaxConcurrencyPath", "ToleratedFailureCountPath",
              "ToleratedFailurePercentagePath", "ErrorPath", "CausePath", "Choice Variable",
              "Choice comparison path", "ResultPath")
    names = " ".join(case["name"] for case in CASES)
    assert [field for field in fields if field not in names] == []
    kinds = {case["definition"]["States"]["S"]["Type"] for case in CASES}
    assert kinds == {"Pass", "Task", "Choice", "Wait", "Succeed", "Fail", "Parallel", "Map"}


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_a_path_that_cannot_be_read_fails_with_the_fields_cause(harness: Harness, case: dict[str, Any]) -> None:
    execution = harness.run(case["definition"], case["input"])

    assert (execution.status, execution.error, execution.cause) == ("FAILED", case["error"], case["cause"])
