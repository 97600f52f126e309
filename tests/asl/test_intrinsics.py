"""The States.* intrinsic functions: what compiles, what each call returns, and how AWS fails.

Table-driven from fixtures/intrinsics/: one file per function (`cases`) and syntax.json.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers.scopes import FixedScope

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.intrinsics import FUNCTION_NAMES, IntrinsicSyntaxError, compile_intrinsic
from sfn_emulator.process.randomness import Randomness

FIXTURES = FIXTURES_ROOT / "intrinsics"
SYNTAX = json.loads((FIXTURES / "syntax.json").read_text(encoding="utf-8"))


def strict(value: Any) -> str:
    """JSON text that tells true from 1 and 1 from 1.0, for exact comparisons."""
    return json.dumps(value, sort_keys=True)


def function_cases() -> list[Any]:
    params = []
    for path in sorted(FIXTURES.glob("*.json")):
        if path.name == "syntax.json":
            continue
        document = json.loads(path.read_text(encoding="utf-8"))
        for case in document["cases"]:
            params.append(pytest.param(case, id=f"{document['function']}: {case['name']}"))
    return params


def evaluate(expression: str, value: Any = None, **scope: Any) -> Any:
    return compile_intrinsic(expression).evaluate(value, FixedScope(**scope))


@pytest.mark.parametrize("case", function_cases())
def test_function_case(case: dict[str, Any]) -> None:
    intrinsic = compile_intrinsic(case["expression"])
    scope = FixedScope(case.get("context"), case.get("variables"))
    if "error" in case:
        with pytest.raises(StatesError) as raised:
            intrinsic.evaluate(case["input"], scope)
        assert (raised.value.error, raised.value.cause) == (case["error"], case["cause"])
    else:
        assert strict(intrinsic.evaluate(case["input"], scope)) == strict(case["output"])


@pytest.mark.parametrize("expression", SYNTAX["valid"])
def test_valid_call_compiles(expression: str) -> None:
    assert compile_intrinsic(expression).text == expression


@pytest.mark.parametrize("case", SYNTAX["invalid"], ids=lambda case: case["expression"] or "<empty>")
def test_invalid_call_is_rejected_with_a_reason(case: dict[str, str]) -> None:
    with pytest.raises(IntrinsicSyntaxError) as raised:
        compile_intrinsic(case["expression"])
    assert case["reason"] in str(raised.value)
    assert isinstance(raised.value, ValueError)


def test_all_eighteen_documented_functions_are_known() -> None:
    assert FUNCTION_NAMES == {
        f"States.{name}"
        for name in (
            "Format StringToJson JsonToString Array ArrayPartition ArrayContains ArrayRange ArrayGetItem "
            "ArrayLength ArrayUnique Base64Encode Base64Decode Hash JsonMerge MathRandom MathAdd StringSplit UUID"
        ).split()
    }


def test_a_compiled_call_evaluates_again_without_changing_its_input() -> None:
    intrinsic = compile_intrinsic("States.JsonMerge($.a, $.b, false)")
    value = {"a": {"x": 1}, "b": {"y": 2}}
    first = intrinsic.evaluate(value, FixedScope())
    second = intrinsic.evaluate(value, FixedScope())
    assert first == second == {"x": 1, "y": 2}
    assert first is not second
    assert value == {"a": {"x": 1}, "b": {"y": 2}}


def test_uuid_is_a_fresh_version_4_uuid_every_time() -> None:
    intrinsic, scope = compile_intrinsic("States.UUID()"), FixedScope()
    first, second = intrinsic.evaluate(None, scope), intrinsic.evaluate(None, scope)
    assert first != second
    assert uuid.UUID(first).version == 4 and str(uuid.UUID(first)) == first


def test_uuid_and_math_random_draw_from_the_scope_s_source() -> None:
    """The same seed draws the same values in the same order; another seed, others."""
    intrinsic = compile_intrinsic("States.Array(States.UUID(), States.MathRandom(0, 1000000000), States.UUID())")

    def draws(seed: int) -> Any:
        scope = FixedScope()
        scope.randomness = Randomness(seed)
        return intrinsic.evaluate(None, scope)

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)


def test_uuid_ignores_arguments_as_aws_does() -> None:
    assert uuid.UUID(evaluate("States.UUID($.x, 1, null)", {"x": "ignored"})).version == 4


@given(start=st.integers(-(2**31), 2**31 - 2), width=st.integers(1, 2**20), seed=st.none() | st.integers(-(2**31), 2**31))
def test_math_random_is_an_integer_from_start_up_to_but_not_including_end(start: int, width: int, seed: int | None) -> None:
    end = start + width
    seed_argument = "" if seed is None else f", {seed}"
    result = evaluate(f"States.MathRandom($.start, $.end{seed_argument})", {"start": start, "end": end})
    assert isinstance(result, int) and start <= result < end


def test_math_random_with_a_seed_repeats() -> None:
    intrinsic = compile_intrinsic("States.MathRandom(1, 1000000, 42)")
    assert len({intrinsic.evaluate(None, FixedScope()) for _ in range(5)}) == 1


def test_math_random_truncates_fractional_bounds() -> None:
    results = {evaluate("States.MathRandom(1.6, 5.4)") for _ in range(200)}
    assert results <= {1, 2, 3, 4}


def test_array_range_allows_exactly_one_thousand_items() -> None:
    assert evaluate("States.ArrayRange(1, 1000, 1)") == list(range(1, 1001))
    assert evaluate("States.ArrayRange(1000, 1, -1)") == list(range(1000, 0, -1))


@pytest.mark.parametrize("function", ["Base64Encode", "Hash"])
def test_encoding_functions_accept_ten_thousand_characters(function: str) -> None:
    extra = ", 'SHA-256'" if function == "Hash" else ""
    assert isinstance(evaluate(f"States.{function}($.s{extra})", {"s": "a" * 10_000}), str)


def test_base64_decode_accepts_ten_thousand_characters() -> None:
    assert evaluate("States.Base64Decode($.s)", {"s": "QUJD" * 2_500}) == "ABC" * 2_500


# ------------------------------------------------------------------------------------------------
# Properties: parsing yields an Intrinsic or an IntrinsicSyntaxError; evaluation a value or a
# StatesError, nothing else.

FRAGMENTS = [
    "States.", "Format", "Array", "ArrayRange", "MathAdd", "UUID", "Nope", "(", ")", ",", " ", "'", "\\",
    "'a{}'", "'\\''", "'\\{'", "{", "}", "$", "$$", "$.a", "$.a[0]", "$['x", "]", "[", "$v", "1", "-2.5", "1e3",
    ".", "-", "true", "null", "\"", "?", "@",
]


@settings(max_examples=300)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join) | st.text(max_size=40))
def test_parsing_any_text_gives_an_intrinsic_or_a_syntax_error(text: str) -> None:
    try:
        compile_intrinsic(text)
    except IntrinsicSyntaxError:
        pass


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.sampled_from("abc"), children, max_size=3),
    max_leaves=12,
)
literals = st.sampled_from(["1", "-2", "0.5", "2.6", "true", "false", "null", "'a,b'", "'{}'", "'{} {}'", "'MD5'", "'x'"])
path_arguments = st.sampled_from(["$", "$.a", "$.b", "$.c[0]", "$.a.b", "$$.Execution.Input", "$$.Nope", "$var", "$var.a"])


def calls(arguments: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(
        lambda name, args: f"{name}({', '.join(args)})",
        st.sampled_from(sorted(FUNCTION_NAMES)),
        st.lists(arguments, max_size=4),
    )


expressions = calls(st.recursive(literals | path_arguments, calls, max_leaves=6))


@settings(max_examples=300)
@given(expression=expressions, value=json_values, variable=json_values)
def test_any_call_on_any_input_gives_a_value_or_a_states_error(expression: str, value: Any, variable: Any) -> None:
    scope = FixedScope({"Execution": {"Input": value}}, {"var": variable})
    try:
        result = compile_intrinsic(expression).evaluate(value, scope)
    except StatesError as error:
        assert error.error == "States.Runtime" and error.cause.startswith(f"The function '{expression}'")
    else:
        json.dumps(result)  # a JSON value
