"""A field compiled once, however its author wrote it: a literal, a `…Path` or a `{% %}` expression.

Many ASL fields take a value three ways: `TimeoutSeconds: 5`, `TimeoutSecondsPath: "$.t"`, or (in
JSONata) `TimeoutSeconds: "{% $t %}"`. The parser's field table (`asl.parsing.field_table`) names a
field's forms and, for its twin, this module's `PathRule`; the table's reader compiles whichever form is
present into one field object whose `evaluate(value, scope)` gives the value; the interpreter never asks
which way it was written.
Each origin carries its own check, with AWS's error text for it: a literal was checked when parsed;
an expression carries its type rule (`TypedExpression`, "unexpected result type"); a path is checked
when it runs by its field's `PathRule` (AWS words these differently field by field, e.g. "The
SecondsPath parameter cannot be parsed as a long value", "The MaxConcurrencyPath field refers to
value ... which is not a valid integer"). A check that applies whatever the origin (a negative
ToleratedFailureCount, a delay too long) stays with the state that reads the field.

Numbers written as text: the Map's numeric `…Path` fields (MaxConcurrencyPath,
ToleratedFailureCountPath, ToleratedFailurePercentagePath, MaxItemsPath, MaxItemsPerBatchPath,
MaxInputBytesPerBatchPath) parse the selected value's text, so `"1"` runs as 1 (AWS's recordings);
SecondsPath, TimeoutSecondsPath and HeartbeatSecondsPath take JSON numbers only (what AWS does with
text there is not recorded). A path reading a workflow variable (`$name`) is read the same way.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Callable, Protocol

from msgspec import Struct

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.jsonata_expressions import QueryEvaluationError
from sfn_emulator.asl.model import JSON, Constant, Expression, ExpressionScope
from sfn_emulator.asl.timestamps import parse_timestamp

MAX_WAIT_SECONDS = 2**31 - 1  # AWS refuses longer delays: "Wait state delay is too long."
WAIT_TOO_LONG = "Wait state delay is too long."



class Field(Protocol):
    """A compiled field: its value for the state's input (`$states` in JSONata)."""

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        """The field's value; raises `StatesError` with AWS's text when the value breaks its rule."""
        ...


class TextedPath(Expression, Protocol):
    """A compiled path (or intrinsic call) and the text it was written as (AWS's errors quote it)."""

    text: str


class PathRule(Struct, frozen=True):
    """How one `…Path` field reads what its path selects.

    `missing(path text, reason, input)` is AWS's cause when the path selects nothing; `check(selected,
    path text)` gives the field's value from what was selected, or raises with AWS's cause."""

    missing: Callable[[str, str, JSON], str]
    check: Callable[[JSON, str], JSON]


class PathField(Struct, frozen=True):
    """A field given as a `…Path`: the value its path selects, read by the field's rule."""

    path: TextedPath
    rule: PathRule

    @property
    def text(self) -> str:
        return self.path.text

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        try:
            selected = self.path.evaluate(value, scope)
        except LookupError as missing:  # PathNotFound and friends
            cause = self.rule.missing(self.path.text, getattr(missing, "reason", None) or str(missing), value)
            raise StatesError(names.RUNTIME, cause) from None
        return self.rule.check(selected, self.path.text)


class Converted(Struct, frozen=True):
    """A field whose value (of an expression, typically) the field's rule converts: a Wait's Timestamp
    text to a time, its Seconds capped."""

    field: Field
    convert: Callable[[JSON], JSON]

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        return self.convert(self.field.evaluate(value, scope))


def one_field(literal: JSON, path: TextedPath | None, expression: Field | None, rule: PathRule) -> Field | None:
    """The field a state's definition gives, from what the parser compiled of each way to write it (at
    most one is present: the parser refuses the others); None when none is."""
    if expression is not None:
        return expression
    if path is not None:
        return PathField(path, rule)
    return Constant(literal) if literal is not None else None


# -- the rules of each field -------------------------------------------------------------------------

def shown(value: JSON) -> str:
    """A value as AWS quotes it in a cause: a string as is, anything else as compact JSON."""
    return value if isinstance(value, str) else compact_json(value)


def invalid_path(text: str, reason: str, value: JSON) -> str:
    """The cause of a path that selects nothing, for the fields without wording of their own."""
    return f"Invalid path '{text}' : {reason}"


def _as_is(selected: JSON, text: str) -> JSON:
    return selected


def _not_referenced(field: str) -> Callable[[str, str, JSON], str]:
    return lambda text, reason, value: f"The {field} parameter does not reference an input value: {text}"


def _wait_seconds(seconds: JSON, text: str) -> int:
    if isinstance(seconds, bool) or not isinstance(seconds, int):
        if isinstance(seconds, float) and seconds.is_integer():
            seconds = int(seconds)
        else:
            raise StatesError(names.RUNTIME, f"The SecondsPath parameter cannot be parsed as a long value: "
                                             f"{text} == {compact_json(seconds)}")
    if seconds < 0:
        raise StatesError(names.RUNTIME, f"The SecondsPath parameter references a negative value: {text} == {seconds}")
    if seconds > MAX_WAIT_SECONDS:
        raise StatesError(names.RUNTIME, WAIT_TOO_LONG)
    return seconds


def _wait_timestamp(stamp: JSON, text: str) -> datetime:
    parsed = parse_timestamp(stamp) if isinstance(stamp, str) else None
    if parsed is None:
        raise StatesError(names.RUNTIME, "The TimestampPath parameter does not reference a valid ISO-8601 extended "
                                         f"offset date-time format string: {text} == {shown(stamp)}")
    return parsed


def _positive_seconds(field: str) -> Callable[[JSON, str], JSON]:
    """TimeoutSecondsPath / HeartbeatSecondsPath: a positive integer, as their literal must be (a whole
    number written as `5.0` is that integer; a fraction is refused like any non-integer)."""
    def check(seconds: JSON, text: str) -> JSON:
        whole = isinstance(seconds, int) or (isinstance(seconds, float) and seconds.is_integer())
        if isinstance(seconds, bool) or not whole or seconds <= 0:
            raise StatesError(names.RUNTIME, f"The {field} parameter does not reference a positive integer: "
                                             f"{text} == {compact_json(seconds)}")
        return int(seconds)
    return check


_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_DECIMAL_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def integer_text(value: JSON) -> JSON:
    """A Map field's number as AWS reads it from a path: the selected value's text parsed as an integer,
    so `"1"` is 1 (recorded for MaxConcurrencyPath and ToleratedFailureCountPath; AWS's error quotes the
    value as text: 'refers to value "NoNumber" which is not a valid integer'). Anything else is returned
    as it is, for the field's check to refuse."""
    return int(value) if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value) else value


def decimal_text(value: JSON) -> JSON:
    """ToleratedFailurePercentagePath's number, read the same way as a decimal ("1.5" is 1.5)."""
    return float(value) if isinstance(value, str) and _DECIMAL_TEXT.fullmatch(value) else value


def _integer_referred(field: str, *, non_negative: bool = False) -> Callable[[JSON, str], JSON]:
    def check(selected: JSON, text: str) -> JSON:
        number = integer_text(selected)
        if isinstance(number, bool) or not isinstance(number, int) or (non_negative and number < 0):
            raise StatesError(names.RUNTIME, f'The {field} field refers to value "{shown(number)}" which is not a '
                                             f"valid integer: {text}")
        return number
    return check


def _float_referred(selected: JSON, text: str) -> JSON:
    percentage = decimal_text(selected)
    if isinstance(percentage, bool) or not isinstance(percentage, (int, float)):
        raise StatesError(names.RUNTIME, "The ToleratedFailurePercentagePath field refers to value "
                                         f'"{shown(percentage)}" which is not a valid float: {text}')
    return percentage


def _batch_size(size: JSON, text: str) -> JSON:
    """A batch bound (items or bytes): a number given as text is taken, as for MaxItemsPath (what is no
    positive integer is ignored later)."""
    return integer_text(size)


def _max_items(selected: JSON, text: str) -> int:
    max_items = integer_text(selected)
    if isinstance(max_items, bool) or not isinstance(max_items, int):
        quoted = max_items if isinstance(max_items, str) else json.dumps(max_items)
        raise StatesError(names.RUNTIME, f'The MaxItemsPath field refers to value "{quoted}" which is not a valid '
                                         f"integer: {text}")
    return max_items


def _not_in_input(field: str) -> Callable[[str, str, JSON], str]:
    return lambda text, reason, value: (f"The JSONPath '{text}' specified for the field '{field}' could not "
                                        f"be found in the input '{compact_json(value)}'")


SECONDS_PATH = PathRule(_not_referenced("SecondsPath"), _wait_seconds)
TIMESTAMP_PATH = PathRule(_not_referenced("TimestampPath"), _wait_timestamp)
TIMEOUT_SECONDS_PATH = PathRule(invalid_path, _positive_seconds("TimeoutSecondsPath"))
HEARTBEAT_SECONDS_PATH = PathRule(invalid_path, _positive_seconds("HeartbeatSecondsPath"))
MAX_CONCURRENCY_PATH = PathRule(invalid_path, _integer_referred("MaxConcurrencyPath", non_negative=True))
TOLERATED_FAILURE_COUNT_PATH = PathRule(invalid_path, _integer_referred("ToleratedFailureCountPath"))
TOLERATED_FAILURE_PERCENTAGE_PATH = PathRule(invalid_path, _float_referred)
MAX_ITEMS_PER_BATCH_PATH = PathRule(invalid_path, _batch_size)
MAX_INPUT_BYTES_PER_BATCH_PATH = PathRule(invalid_path, _batch_size)
MAX_ITEMS_PATH = PathRule(invalid_path, _max_items)
ERROR_PATH = PathRule(_not_in_input("ErrorPath"), lambda selected, text: shown(selected))
CAUSE_PATH = PathRule(_not_in_input("CausePath"), lambda selected, text: shown(selected))


def expression_timestamp(stamp: JSON) -> datetime:
    """A JSONata Timestamp's value as a time, or AWS's QueryEvaluationError."""
    parsed = parse_timestamp(stamp) if isinstance(stamp, str) else None
    if parsed is None:
        raise QueryEvaluationError("The Timestamp field cannot be parsed as an ISO-8601 extended offset date-time "
                                   f"format string: {shown(stamp)}", "Timestamp")
    return parsed


def capped_seconds(seconds: JSON) -> JSON:
    """A JSONata Seconds' value, capped at the longest delay (AWS does not refuse it, as it does a path's)."""
    return min(seconds, MAX_WAIT_SECONDS)
