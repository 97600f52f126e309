"""Numeric `…Path` fields and numbers written as text (issue #28, rule 5). The Map's numeric path
fields parse the selected value's text, so `"1"` runs as 1 (AWS's recordings for MaxConcurrencyPath and
ToleratedFailureCountPath; AWS's errors quote the value as text); SecondsPath, TimeoutSecondsPath and
HeartbeatSecondsPath take JSON numbers only (AWS's behaviour with text is not recorded). The path may
read the input or a workflow variable: both are read the same way."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_harness import Harness

ECHO = "arn:aws:lambda:us-east-1:111111111111:function:echo"


def _processor(mode: str, states: dict[str, Any] | None = None) -> dict[str, Any]:
    config = {"Mode": mode, **({"ExecutionType": "STANDARD"} if mode == "DISTRIBUTED" else {})}
    return {"ProcessorConfig": config, "StartAt": "I", "States": states or {"I": {"Type": "Pass", "End": True}}}


# An item processor that fails on the item "bad": what ToleratedFailureCount tolerates.
FAILS_ON_BAD = {"I": {"Type": "Choice", "Choices": [{"Variable": "$", "StringEquals": "bad", "Next": "Bad"}],
                      "Default": "Good"},
                "Bad": {"Type": "Fail", "Error": "Bad"}, "Good": {"Type": "Succeed"}}

# (field, the state reading the number from `path`, the number as text, what the state then outputs)
TEXT_READ_AS_NUMBER: list[tuple[str, Any, str, Any]] = [
    ("MaxConcurrencyPath", lambda p: {"Type": "Map", "ItemsPath": "$.items", "MaxConcurrencyPath": p,
                                      "ItemProcessor": _processor("INLINE"), "End": True}, "1", ["bad", 2]),
    ("ToleratedFailureCountPath", lambda p: {"Type": "Map", "ItemsPath": "$.items", "ToleratedFailureCountPath": p,
                                             "ItemProcessor": _processor("DISTRIBUTED", FAILS_ON_BAD), "End": True},
     "1", None),
    ("ToleratedFailurePercentagePath", lambda p: {"Type": "Map", "ItemsPath": "$.items",
                                                  "ToleratedFailurePercentagePath": p,
                                                  "ItemProcessor": _processor("DISTRIBUTED", FAILS_ON_BAD),
                                                  "End": True}, "50.0", None),
    ("MaxItemsPerBatchPath", lambda p: {"Type": "Map", "ItemsPath": "$.items", "ItemBatcher": {"MaxItemsPerBatchPath": p},
                                        "ItemProcessor": _processor("DISTRIBUTED"), "End": True},
     "1", [{"Items": ["bad"]}, {"Items": [2]}]),
]


def _run(state: dict[str, Any], path_value: Any, reader: str) -> Any:
    """Run `state` with its path reading `path_value` from the input (`$.n`) or from a variable (`$n`)."""
    states = {"Under": state}
    start = "Under"
    if reader == "variable":
        states = {"Set": {"Type": "Pass", "Assign": {"n.$": "$.n"}, "Next": "Under"}, **states}
        start = "Set"
    with Harness(functions={ECHO: "identity"}) as harness:
        return harness.run({"StartAt": start, "States": states}, {"items": ["bad", 2], "n": path_value})


@pytest.mark.parametrize("reader", ["input", "variable"])
@pytest.mark.parametrize(("field", "state", "text", "output"), TEXT_READ_AS_NUMBER,
                         ids=[row[0] for row in TEXT_READ_AS_NUMBER])
def test_a_map_number_written_as_text_is_read_as_the_number(field: str, state: Any, text: str, output: Any,
                                                           reader: str) -> None:
    path = "$.n" if reader == "input" else "$n"
    execution = _run(state(path), text, reader)
    assert execution.status == "SUCCEEDED", execution.cause
    if output is not None:
        assert json.loads(execution.output) == output


@pytest.mark.parametrize("reader", ["input", "variable"])
def test_a_tolerated_failure_count_read_from_text_still_counts(reader: str) -> None:
    """"0" is 0 tolerated failures: the one failing item fails the map run."""
    path = "$.n" if reader == "input" else "$n"
    execution = _run(TEXT_READ_AS_NUMBER[1][1](path), "0", reader)
    assert execution.status == "FAILED"
    assert execution.error == "States.ExceedToleratedFailureThreshold"


@pytest.mark.parametrize(("field", "text", "cause"), [
    ("MaxConcurrencyPath", "1.5", 'The MaxConcurrencyPath field refers to value "1.5" which is not a valid integer: $.n'),
    ("MaxConcurrencyPath", "one", 'The MaxConcurrencyPath field refers to value "one" which is not a valid integer: $.n'),
    ("ToleratedFailureCountPath", "1.5",
     'The ToleratedFailureCountPath field refers to value "1.5" which is not a valid integer: $.n'),
    ("ToleratedFailurePercentagePath", "half",
     'The ToleratedFailurePercentagePath field refers to value "half" which is not a valid float: $.n'),
])
def test_text_that_is_no_number_is_refused_with_aws_text(field: str, text: str, cause: str) -> None:
    state = next(row[1] for row in TEXT_READ_AS_NUMBER if row[0] == field)("$.n")
    execution = _run(state, text, "input")
    assert execution.status == "FAILED"
    assert execution.error == "States.Runtime"
    assert execution.cause.endswith(cause)


@pytest.mark.parametrize(("state", "cause"), [
    ({"Type": "Wait", "SecondsPath": "$.n", "End": True},
     'The SecondsPath parameter cannot be parsed as a long value: $.n == "1"'),
    ({"Type": "Task", "Resource": ECHO, "TimeoutSecondsPath": "$.n", "End": True},
     'The TimeoutSecondsPath parameter does not reference a positive integer: $.n == "1"'),
    ({"Type": "Task", "Resource": ECHO, "HeartbeatSecondsPath": "$.n", "End": True},
     'The HeartbeatSecondsPath parameter does not reference a positive integer: $.n == "1"'),
], ids=["SecondsPath", "TimeoutSecondsPath", "HeartbeatSecondsPath"])
def test_a_delay_path_takes_numbers_only(state: dict[str, Any], cause: str) -> None:
    execution = _run(state, "1", "input")
    assert execution.status == "FAILED"
    assert execution.error == "States.Runtime"
    assert execution.cause.endswith(cause)
