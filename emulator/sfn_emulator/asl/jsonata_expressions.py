"""JSONata in Step Functions: `{% expression %}` strings, compiled once with jsonata-python.

A JSONata state's fields (Arguments, Output, Assign, Condition, Items, Seconds, ...) hold JSON in
which any string wrapped in `{%` and `%}` is an expression. `compile_jsonata_template` compiles
such a value into a tree whose `evaluate(states, scope)` gives the JSON value, where `states`
holds what the reserved variable `$states` offers at that point of the state (`input`, `result`,
`errorOutput`) and the scope adds `$states.context` and the workflow variables.

Besides JSONata's own functions, expressions see the ones Step Functions adds (`jsonata_functions`: `$partition`,
`$range`, `$hash`, `$random`, `$uuid`, `$parse`), and `$now()`/`$millis()` read the execution's
clock. A failure is `States.QueryEvaluationError` with AWS's cause, which always names the
expression and the field it stands in: "The JSONata expression '<expression>' specified for the
field '<field>' threw an error during evaluation. <code>: <message>" when JSONata raised (its own
errors and those of its functions, `$error()` included), "... returned nothing (undefined)." when it
gave no value (a workflow variable holding null is null, not undefined), "... returned an unsupported
result type." when it gave a function, and "...
returned an unexpected result type. Expected '<type>', but was '<JSONata type>' for value:
<compact JSON>" when the field takes one type of value (Items an array, Condition a boolean, ...):
a field with such a type rule is compiled as a `TypedExpression`, so every caller gets the check.
"""

from __future__ import annotations

import functools
import math
import re
from typing import TYPE_CHECKING, Any, Callable, Protocol

from msgspec import Struct

if TYPE_CHECKING:  # jsonata-python is imported with the first expression compiled: most definitions use JSONPath
    from jsonata.jexception import JException

from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.bounded_regex import RegexTimeout, bounded_regex_engine
from sfn_emulator.asl.errors import QUERY_EVALUATION_ERROR, StatesError
from sfn_emulator.asl.jsonata_functions import (
    DRAWING_FUNCTIONS,
    ArgumentError,
    UNAVAILABLE,
    clock_functions,
    drawing_functions,
    step_functions_additions,
)
from sfn_emulator.asl.jsonata_numbers import jsonata_class, number_functions, number_text
from sfn_emulator.asl.jsonata_refusals import Refusal, jsonata_js_message, syntax_refusal, top_level_refusals
from sfn_emulator.asl.model import JSON, ExpressionScope

__all__ = [
    "ARRAY",
    "BOOLEAN",
    "NON_NEGATIVE_INTEGER",
    "NUMBER",
    "POSITIVE_INTEGER",
    "STRING",
    "INTEGER",
    "JsonataCondition",
    "JsonataSyntaxError",
    "QueryEvaluationError",
    "ResultType",
    "TypedExpression",
    "compile_jsonata",
    "compile_jsonata_template",
    "compile_typed_jsonata",
    "is_jsonata",
]

OPEN = "{%"
CLOSE = "%}"
STACK_OVERFLOW = ("U1001: Stack overflow error: Check for non-terminating recursive function.  Consider rewriting as "
                  "tail-recursive.")
# How many evaluation steps (JSONata nodes entered) one evaluation may take. A tail-recursive function never
# overflows the stack, so without a bound `($f := function($n){$f($n)}; $f(1))` would hold the engine for
# ever. Steps, not seconds: the same expression stops at the same point on every machine. A 100,000-item
# `$map` with a small lambda takes about 500,000 steps; the bound is four times that (a few seconds of
# the engine thread at most).
STEP_BUDGET = 2_000_000


class _StepBudget:
    """Counts the nodes one evaluation enters (jsonata's evaluate-entry hook) and stops it past the budget."""

    __slots__ = ("left",)

    def __init__(self, budget: int) -> None:
        self.left = budget

    def __call__(self, expression: Any, data: Any, environment: Any) -> None:
        self.left -= 1
        if self.left < 0:
            raise _RunawayExpression


class _RunawayExpression(Exception):
    """An evaluation went past STEP_BUDGET (raised from inside jsonata, caught by JsonataExpression)."""


def is_jsonata(value: JSON) -> bool:
    """True for a string that is a JSONata expression: `{% ... %}`."""
    return isinstance(value, str) and value.startswith(OPEN) and value.endswith(CLOSE) and len(value) >= 4


class JsonataSyntaxError(ValueError):
    """An expression AWS refuses when the definition is created (see `jsonata_refusals`): `refusals`
    are its diagnostics' codes and texts, `field` where it stands ("Output/a/b[1]")."""

    def __init__(self, field: str, refusals: list[Refusal]) -> None:
        self.field = field
        self.refusals = refusals
        super().__init__("; ".join(f"{code}: {message}" for code, message in refusals))


class QueryEvaluationError(StatesError):
    """`States.QueryEvaluationError`; `location` is the field the failing expression sits in."""

    def __init__(self, cause: str, location: str | None = None) -> None:
        super().__init__(QUERY_EVALUATION_ERROR, cause)
        self.location = location


class JsonataTemplateNode(Protocol):
    """A compiled part of a JSON value whose strings may be `{% %}` expressions."""

    def evaluate(self, states: dict[str, JSON], scope: ExpressionScope) -> JSON: ...


class JsonataLiteral(Struct, frozen=True):
    """A part with no expression in it: its value as written."""

    value: JSON

    def evaluate(self, states: dict[str, JSON], scope: ExpressionScope) -> JSON:
        return self.value


class JsonataExpression:
    """One compiled `{% ... %}` string; `field` names where it stands (e.g. "Output/error")."""

    __slots__ = ("text", "field", "_compiled", "_draws")

    def __init__(self, text: str, field: str) -> None:
        from jsonata.jexception import JException

        self.text = text
        self.field = field
        try:
            self._compiled = jsonata_class()(text, bounded_regex_engine)
        except JException as problem:
            raise JsonataSyntaxError(field, [syntax_refusal(problem)]) from None
        if self._compiled.errors:
            raise JsonataSyntaxError(field, [syntax_refusal(self._compiled.errors[0])])
        refusals = top_level_refusals(self._compiled.ast)
        if refusals:
            raise JsonataSyntaxError(field, refusals)
        self._compiled.set_output_convert_nulls(False)  # tell null (a value) from undefined (none)
        for name, function in {**number_functions(), **step_functions_additions()}.items():
            self._compiled.register_function(name, function)
        self._draws = any(f"${name}" in text for name in DRAWING_FUNCTIONS)

    def evaluate(self, states: dict[str, JSON], scope: ExpressionScope) -> JSON:
        """The expression's JSON value; raises QueryEvaluationError when it fails or gives nothing."""
        from jsonata.jexception import JException
        from jsonata.utils import Utils

        # A variable holding JSON null is null, a value, not JSONata's undefined (jsonata-python reads a
        # bound None as undefined): `$x` gives null, and a typed field refuses it as 'null' (AWS's rule).
        bindings: dict[str, Any] = {name: Utils.NULL_VALUE if value is None else value
                                    for name, value in scope.visible_variables().items()}
        bindings["states"] = {**states, "context": scope.context_object}
        bindings["now"], bindings["millis"] = clock_functions(scope)
        if self._draws:
            bindings.update(drawing_functions(scope.randomness))
        bindings.update(UNAVAILABLE)
        bindings["__evaluate_entry"] = _StepBudget(STEP_BUDGET)  # jsonata calls it on entering every node
        try:
            result = self._compiled.evaluate(None, bindings)
        except _RunawayExpression:
            raise QueryEvaluationError(self._threw(
                f"Evaluation stopped after {STEP_BUDGET} steps: check for a non-terminating recursive function "
                "or loop."), self.field) from None
        except RegexTimeout as slow:
            raise QueryEvaluationError(self._threw(slow.reason), self.field) from None
        except JException as problem:
            raise QueryEvaluationError(self._threw(_described(problem)), self.field) from None
        except RecursionError:  # JSONata's own words for a recursion too deep to evaluate
            raise QueryEvaluationError(self._threw(STACK_OVERFLOW), self.field) from None
        except ArgumentError as problem:  # a message with no JSONata code follows ": " (AWS's form for those)
            raise QueryEvaluationError(self._threw(str(problem), separator=": "), self.field) from None
        except (ValueError, TypeError, ArithmeticError) as problem:
            raise QueryEvaluationError(self._threw(str(problem)), self.field) from None
        if result is None:
            raise QueryEvaluationError(
                f"The JSONata expression '{self.text}' specified for the field '{self.field}' returned nothing "
                "(undefined).", self.field,
            )
        try:
            return _to_json(result, Utils.NULL_VALUE)
        except _UnsupportedResult:
            raise QueryEvaluationError(
                f"The JSONata expression '{self.text}' specified for the field '{self.field}' returned an "
                "unsupported result type.", self.field,
            ) from None

    def unexpected_type(self, expected: str, value: JSON) -> QueryEvaluationError:
        """The error for a value of the wrong JSON type, e.g. a Condition that is not a boolean."""
        return QueryEvaluationError(
            f"The JSONata expression '{self.text}' specified for the field '{self.field}' returned an unexpected "
            f"result type. Expected '{expected}', but was '{json_type(value)}' for value: "
            f"{compact_json(value)}",
            self.field,
        )

    def _threw(self, detail: str, separator: str = ". ") -> str:
        return (f"The JSONata expression '{self.text}' specified for the field '{self.field}' threw an error "
                f"during evaluation{separator}{detail}")

    def __repr__(self) -> str:
        return f"JsonataExpression({self.text!r})"


class ResultType(Struct, frozen=True):
    """The type rule of a field that takes one kind of value; `name` is how AWS's cause names it."""

    name: str
    accepts: Callable[[JSON], bool]


def _is_integer(value: JSON) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


ARRAY = ResultType("array", lambda value: isinstance(value, list))
BOOLEAN = ResultType("boolean", lambda value: isinstance(value, bool))
STRING = ResultType("string", lambda value: isinstance(value, str))
NUMBER = ResultType("number", lambda value: isinstance(value, (int, float)) and not isinstance(value, bool))
INTEGER = ResultType("integer", _is_integer)
NON_NEGATIVE_INTEGER = ResultType("integer", lambda value: _is_integer(value) and value >= 0)
POSITIVE_INTEGER = ResultType("integer", lambda value: _is_integer(value) and value > 0)


class TypedExpression(Struct, frozen=True):
    """A `{% ... %}` field with a type rule: its value, or AWS's "unexpected result type" error."""

    expression: JsonataExpression
    result_type: ResultType

    @property
    def text(self) -> str:
        return self.expression.text

    def evaluate(self, states: dict[str, JSON], scope: ExpressionScope) -> JSON:
        value = self.expression.evaluate(states, scope)
        if not self.result_type.accepts(value):
            raise self.expression.unexpected_type(self.result_type.name, value)
        return value


class JsonataCondition(Struct, frozen=True):
    """A JSONata Choice rule's `Condition`: a boolean, or an expression typed BOOLEAN."""

    expression: TypedExpression | JsonataLiteral

    def matches(self, states: dict[str, JSON], scope: ExpressionScope) -> bool:
        return bool(self.expression.evaluate(states, scope))


class _Object(Struct, frozen=True):
    fields: tuple[tuple[str, JsonataTemplateNode], ...]

    def evaluate(self, states: dict[str, JSON], scope: ExpressionScope) -> JSON:
        return {key: node.evaluate(states, scope) for key, node in self.fields}


class _Array(Struct, frozen=True):
    items: tuple[JsonataTemplateNode, ...]

    def evaluate(self, states: dict[str, JSON], scope: ExpressionScope) -> JSON:
        return [node.evaluate(states, scope) for node in self.items]


def compile_jsonata(text: str, field: str) -> JsonataExpression:
    """Compile one `{% ... %}` string (the braces included)."""
    return JsonataExpression(text[len(OPEN):-len(CLOSE)].strip(), field)


def compile_typed_jsonata(text: str, field: str, result_type: ResultType) -> TypedExpression:
    """Compile one `{% ... %}` string for a field whose value must be of `result_type`."""
    return TypedExpression(compile_jsonata(text, field), result_type)


def compile_jsonata_template(value: JSON, field: str) -> JsonataTemplateNode:
    """Compile a JSON value whose strings may be `{% ... %}` expressions, at any depth.

    Parts without an expression fold into one shared constant. Raises JsonataSyntaxError."""
    if is_jsonata(value):
        return compile_jsonata(value, field)
    if isinstance(value, dict):
        fields = tuple((key, compile_jsonata_template(item, f"{field}/{key}")) for key, item in value.items())
        if all(isinstance(node, JsonataLiteral) for _, node in fields):
            return JsonataLiteral(value)
        return _Object(fields)
    if isinstance(value, list):
        items = tuple(compile_jsonata_template(item, f"{field}[{index}]") for index, item in enumerate(value))
        if all(isinstance(node, JsonataLiteral) for node in items):
            return JsonataLiteral(value)
        return _Array(items)
    return JsonataLiteral(value)


def json_type(value: JSON) -> str:
    """JSONata's name for a JSON value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(value), "unknown")


def _described(problem: JException) -> str:
    """"<code>: <message>", as AWS shows a JSONata error. jsonata-python raises a few errors with
    JSONata's message in place of its code ("Second argument of replace function cannot be an empty
    string"): those get the code JSONata gives that message (D3010)."""
    from jsonata.jexception import JException

    if problem.error not in JException.error_codes:
        code = _codes_by_message().get(problem.error)
        if code is not None:
            return f"{code}: {problem.error}"
    return f"{problem.error}: {_message(problem)}"


@functools.cache
def _codes_by_message() -> dict[str, str]:
    """JSONata's error codes by their messages (those without placeholders), in JSONata's words."""
    from jsonata.jexception import JException

    return {re.sub(r"\bObject\b", "function", text): code for code, text in JException.error_codes.items()
            if "{{" not in text}


def _message(problem: JException) -> str:
    """jsonata's message without the code it starts with (AWS shows "T1006: Attempted to ..."), in
    JSONata's own words: jsonata-python's texts say "Object" where JSONata's say "function"
    ("Argument 1 of function sum ...")."""
    from jsonata.jexception import JException

    text = str(problem)
    text = text[:-len(problem.error)].rstrip() if text.endswith(problem.error) else text
    if "Object" in JException.error_codes.get(problem.error, ""):
        text = re.sub(r"\bObject\b", "function", text)
    if problem.error == "D1001":  # the number as JSONata prints it: "Infinity", not Python's "inf"
        text = JException.msg("D1001", 0, number_text(problem.current))
    if problem.error in _ARGUMENT_ERRORS:  # AWS quotes the function and the type as jsonata-js does
        element = _ARRAY_ELEMENT_TYPES.get(problem.extra, problem.extra)  # a type in words, not its signature letter
        text = jsonata_js_message(re.sub(r"\bObject\b", "function", JException.error_codes[problem.error]),
                                  (problem.current, problem.expected, element))
    return text


# A function's argument errors, as AWS words them (measured: `T0412: Argument 1 of function "sum" must be an
# array of "numbers"`, floci-io/floci#2668; `T0410: Argument 1 of function "abs" does not match function
# signature`, #2783).
_ARGUMENT_ERRORS = frozenset({"T0410", "T0411", "T0412"})
_ARRAY_ELEMENT_TYPES = {"a": "arrays", "b": "booleans", "f": "functions", "n": "numbers", "o": "objects", "s": "strings"}


def _to_json(value: Any, null: object) -> JSON:
    """A jsonata result as plain JSON: its null marker `null` as None, sequences as lists."""
    if value is None or value is null:
        return None
    if isinstance(value, dict):  # None inside a value is JSON null (jsonata leaves undefined out itself)
        return {key: _to_json(item, null) for key, item in value.items()}
    if isinstance(value, list):
        return [_to_json(item, null) for item in value]
    if isinstance(value, float) and value.is_integer() and not math.isinf(value):
        return int(value)
    if isinstance(value, (str, int, float, bool)):
        return value
    raise _UnsupportedResult()  # a function, which JSON cannot hold


class _UnsupportedResult(Exception):
    pass
