"""Intrinsic functions validate their arguments as AWS does (issue #28, rule 6), wherever a call stands:
Parameters, ResultSelector, ItemSelector, JSONPath Assign, a Task's Credentials and a Fail's
ErrorPath/CausePath all fail the state with `States.Runtime` and AWS's "Invalid arguments in
States.<Name>" cause (the per-function rules: fixtures/intrinsics/)."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from engine_harness import Harness

ECHO = "arn:aws:lambda:us-east-1:111111111111:function:echo"
PROCESSOR = {"StartAt": "I", "States": {"I": {"Type": "Pass", "End": True}}}

# (field, the state holding call `c`)
FIELDS: list[tuple[str, Callable[[str], dict[str, Any]]]] = [
    ("Parameters", lambda c: {"Type": "Pass", "Parameters": {"v.$": c}, "End": True}),
    ("ResultSelector", lambda c: {"Type": "Task", "Resource": ECHO, "ResultSelector": {"v.$": c}, "End": True}),
    ("ItemSelector", lambda c: {"Type": "Map", "ItemsPath": "$.list", "ItemSelector": {"v.$": c},
                                "ItemProcessor": PROCESSOR, "End": True}),
    ("Assign", lambda c: {"Type": "Pass", "Assign": {"v.$": c}, "End": True}),
    ("Credentials", lambda c: {"Type": "Task", "Resource": ECHO, "Credentials": {"RoleArn.$": c}, "End": True}),
    ("ErrorPath", lambda c: {"Type": "Fail", "ErrorPath": c, "Cause": "x"}),
]

# (call, input, AWS's reason) — the rules the issue names: data a string, deep flag the boolean false,
# integers where the page asks for them, ArrayGetItem out of bounds.
CALLS: list[tuple[str, str]] = [
    ("States.Hash($.n, 'MD5')", "Invalid arguments in States.Hash"),
    ("States.JsonMerge($.a, $.a, $.text)", "Invalid arguments in States.JsonMerge"),
    ("States.JsonMerge($.a, $.a, true)", "Invalid arguments in States.JsonMerge"),
    ("States.ArrayRange(1, 5, $.text)", "Invalid arguments in States.ArrayRange"),
    ("States.MathRandom($.text, 10)", "Invalid arguments in States.MathRandom"),
    ("States.MathAdd($.text, 1)", "Invalid arguments in States.MathAdd"),
    ("States.ArrayGetItem($.list, 5)", "Invalid arguments in States.ArrayGetItem"),
]
INPUT = {"n": 1, "a": {"k": 1}, "text": "false", "list": [1, 2]}


@pytest.mark.parametrize(("call", "reason"), CALLS, ids=[row[0] for row in CALLS])
@pytest.mark.parametrize(("field", "state"), FIELDS, ids=[row[0] for row in FIELDS])
def test_an_invalid_argument_fails_the_state_with_aws_cause(field: str, state: Any, call: str, reason: str) -> None:
    with Harness(functions={ECHO: "identity"}) as harness:
        execution = harness.run({"StartAt": "S", "States": {"S": state(call)}}, INPUT)
    assert execution.status == "FAILED"
    assert execution.error == "States.Runtime"
    assert execution.cause.endswith(f"The function '{call}' had the following error: {reason}")
