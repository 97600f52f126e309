"""Step Functions' own JSONata functions as AWS runs them (issue #28, rule 3): `$range` gives a JSONata
sequence (a one-item range is the item), `$partition` an array of chunks, fractional arguments truncated
toward zero, `$hash` with AWS's five algorithms, `$random(seed)` as java.util.Random's nextDouble, bit for
bit. Values marked AWS were measured on AWS (floci-io/floci#2662, #2676) or recorded (conformance cases)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_harness import Harness

from sfn_emulator.asl.jsonata_functions import MEMORY_LIMIT, java_random_double

VALUES: list[tuple[str, Any]] = [
    ("$parse('{\"a\":1}').a", 1),  # AWS
    ("$partition([1,2,3,4], 2)", [[1, 2], [3, 4]]),  # AWS
    ("$partition([0], 1)", [[0]]),  # AWS (recorded): an array, not a sequence
    ("$partition([0, 1, 2], 5)", [[0, 1, 2]]),  # AWS (recorded)
    ("$partition([1, 2, 3], 1.9)", [[1], [2], [3]]),
    ("$range(0, 6, 2)", [0, 2, 4, 6]),  # AWS: the end is included when a step lands on it
    ("$range(1, 9, 9)", 1),  # a one-item sequence is the item
    ("[$range(1, 9, 9)]", [1]),
    ("$range(-1.7, 2, 1)", [-1, 0, 1, 2]),  # AWS: truncated toward zero
    ("$range(3, 1, -1)", [3, 2, 1]),
    ("$count($range(1, 200000, 1))", 200000),  # AWS: no 1000-item cap
    ("$hash('input', 'SHA-1')", "140f86aae51ab9e1cda9b4254fe98a74eb54c1a1"),  # AWS
    ("$hash('input', 'MD5')", "a43c1b0aa53a0c908810c06ab1ff3967"),
    ("$hash('input', 'SHA-256')", "c96c6d5be8d08a12e7b5cdc1b207fa6b2430974c86803d8891675e76fd992c20"),
    ("$hash('input', 'SHA-384')", "4fbd200eb6266698f0846c66607c98797e2b9b3af5bf82aa1aa330a0e2b12aba97755e3bc955c9765e9edcc70278ca2c"),
    ("$hash('input', 'SHA-512')",
     "dc6d6c30f2be9c976d6318c9a534d85e9a1c3f3608321a04b4678ef408124d45d7164f3e562e68c6c0b6c077340a785824017032fddfa924f4cf400e6cbb6adc"),
    ("$random(42)", 0.7275636800328681),  # AWS, bit for bit
    ("$random(42) = $random(42)", True),
    ("$parse('-0')", 0),  # AWS (recorded)
    ("$parse('1.1')", 1.1),  # AWS (recorded)
]

NOTHING = ["$range(3, 1, 1)", "$range(1, 3, 0)"]

FAILURES: list[tuple[str, str]] = [
    ("$partition([1], -1)", "threw an error during evaluation: The size argument of $partition must be a positive "
                            "integer, but was -1"),
    ("$partition([1], 0.5)", "threw an error during evaluation: The size argument of $partition must be a positive "
                             "integer, but was 0.5"),
    ("$hash('a', 'SHA-3')", "threw an error during evaluation: The hashing algorithm 'SHA-3' is not supported; use one "
                            "of MD5, SHA-1, SHA-256, SHA-384, SHA-512"),
    ("$range(1, 100000000, 1)", f"threw an error during evaluation: {MEMORY_LIMIT}"),
    ("$parse('not json')", "threw an error during evaluation: The argument of $parse is not JSON text: not json"),
    ("$random('seed')", "threw an error during evaluation. T0410: Argument 1 of function \"random\" does not match "
                        "function signature"),
]


def _run(expression: str, field: str) -> Any:
    """Run `expression` in a Pass state's Output, or assign it and output the variable."""
    if field == "Output":
        states = {"S": {"Type": "Pass", "Output": f"{{% {expression} %}}", "End": True}}
    else:
        states = {"S": {"Type": "Pass", "Assign": {"v": f"{{% {expression} %}}"}, "Next": "R"},
                  "R": {"Type": "Pass", "Output": "{% $v %}", "End": True}}
    with Harness() as harness:
        return harness.run({"QueryLanguage": "JSONata", "StartAt": "S", "States": states}, {})


@pytest.mark.parametrize("field", ["Output", "Assign"])
@pytest.mark.parametrize(("expression", "value"), VALUES, ids=[row[0] for row in VALUES])
def test_a_function_gives_what_aws_gives(expression: str, value: Any, field: str) -> None:
    execution = _run(expression, field)
    assert execution.status == "SUCCEEDED", execution.cause
    assert json.loads(execution.output) == value


@pytest.mark.parametrize("expression", NOTHING)
def test_an_empty_range_is_nothing(expression: str) -> None:
    execution = _run(expression, "Output")
    assert execution.cause.endswith(f"The JSONata expression '{expression}' specified for the field 'Output' "
                                    "returned nothing (undefined).")


@pytest.mark.parametrize(("expression", "ending"), FAILURES, ids=[row[0] for row in FAILURES])
def test_refused_arguments_fail_the_state(expression: str, ending: str) -> None:
    execution = _run(expression, "Output")
    assert execution.status == "FAILED"
    assert execution.error == "States.QueryEvaluationError"
    assert execution.cause.endswith(f"The JSONata expression '{expression}' specified for the field 'Output' {ending}")


@pytest.mark.parametrize(("seed", "value"), [(0, 0.730967787376657), (42, 0.7275636800328681)])
def test_seeded_random_is_java_util_random(seed: int, value: float) -> None:
    assert java_random_double(seed) == value
