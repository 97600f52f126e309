"""JSONata's numbers as JSONata defines them, where jsonata-python's Python arithmetic differs.

JSONata computes with IEEE doubles (JavaScript's, and Java's in the port jsonata-python follows):
`1/0` is Infinity, `-1/0` -Infinity, `0/0` and `1%0` NaN, `$power(10, 400)` Infinity. A value that is
not a finite number is no JSON number, so JSONata refuses it where it checks numbers: an operator's
result with D1001 "Number out of range: Infinity", `$power`'s with D3061 ("... cannot be represented
as a JSON number: base=10, exponent=400"); `$number` of text that is no number is D3030. NaN is no
number at all: the port's number check makes it undefined. Python raises instead (ZeroDivisionError,
"math domain error", OverflowError, "could not convert string to float") or gives a complex number,
which would put Python's words in AWS's cause. This module hands the doubles' results back to
JSONata's own checks, for every operator and function that computes them.
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any


def number_text(value: Any) -> str:
    """A number as JSONata's messages print it: `Infinity`, `-Infinity`, `NaN`, `400` (not Python's
    `inf`, `nan`, `400.0`)."""
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
    return str(value)


def _by_zero(dividend: float, divisor: float, operator: str) -> float:
    """`dividend / divisor` or `dividend % divisor` for a zero divisor, as doubles give it."""
    if operator == "/" and dividend != 0:
        return math.copysign(math.inf, dividend) * math.copysign(1.0, divisor)
    return math.nan


def _power(base: Any, exponent: Any) -> Any:
    """JSONata's `$power`: the double `base ** exponent`, D3061 when it is not a finite number."""
    from jsonata.jexception import JException

    if base is None:
        return None
    try:
        result: Any = float(base) ** float(exponent)
    except (OverflowError, ZeroDivisionError):  # 10 ** 400, 0 ** -1: Infinity as doubles
        result = math.inf
    if isinstance(result, complex) or not math.isfinite(result):  # (-8) ** 0.5 is NaN as doubles
        raise JException("D3061", 1, number_text(float(base)), number_text(float(exponent)))
    return result


def _number(value: Any) -> Any:
    """JSONata's `$number`: text that is no number is D3030 (the value quoted as JSONata's messages
    quote it, as JSON), where Python's float() would raise its own words."""
    from jsonata.functions import Functions
    from jsonata.jexception import JException
    from jsonata.utils import Utils

    if value is Utils.NULL_VALUE:  # null is not among the types $number takes
        raise JException("T0410", -1, 1, "number")
    try:
        return Utils.convert_number(Functions.number(value))  # "1e400" is out of range (D1001)
    except ValueError:
        raise JException("D3030", -1, json.dumps(value, ensure_ascii=False)) from None


@functools.cache
def jsonata_class() -> type:
    """jsonata-python's `Jsonata` with JSONata's double arithmetic (made on first use: importing
    jsonata is left to the first expression compiled)."""
    import jsonata
    from jsonata.utils import Utils

    class DoubleArithmeticJsonata(jsonata.Jsonata):
        def evaluate_numeric_expression(self, lhs: Any, rhs: Any, op: Any) -> Any:
            try:
                return super().evaluate_numeric_expression(lhs, rhs, op)
            except (ZeroDivisionError, ValueError):  # operands checked numbers: only a zero divisor raises
                return Utils.convert_number(_by_zero(float(lhs), float(rhs), op))

    return DoubleArithmeticJsonata


@functools.cache
def number_functions() -> dict[str, Any]:
    """JSONata's functions whose Python arithmetic raises where JSONata's gives a double, redone."""
    from sfn_emulator.asl.jsonata_functions import jsonata_function

    return {"power": jsonata_function(_power, "<n-n:n>"), "number": jsonata_function(_number, "<(nsb)-:n>")}
