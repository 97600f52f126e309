"""Choice rules of the JSONPath query language, compiled once into conditions.

A rule is a data test (`Variable` plus one comparison operator) or a Boolean combination
(`And`, `Or`, `Not`). Semantics as AWS behaves (the runs recorded on AWS, and AWS's runtime
messages as users report them):

- A comparison whose variable (or `...Path` comparand) is not of the operator's type is false,
  never an error: `NumericEquals` on a string, `StringEquals` on null, `TimestampEquals` on a
  string that is not a timestamp.
- A `Variable` or `...Path` comparand that selects nothing fails the state with `States.Runtime`,
  except for `IsPresent`, which exists to ask exactly that.
- Strings compare by UTF-16 code units, as Java's `String.compareTo` does.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Mapping

from msgspec import Struct

from sfn_emulator.asl.errors import RUNTIME, StatesError
from sfn_emulator.asl.model import JSON, ChoiceCondition, ExpressionScope
from sfn_emulator.asl.parsing.rules import EMPTY, expected_type
from sfn_emulator.asl.paths import InvalidPath, JsonPath, PathNotFound, compile_path
from sfn_emulator.asl.timestamps import NOT_A_TIMESTAMP, parse_timestamp

__all__ = ["ChoiceRuleError", "compile_choice_rule", "OPERATORS"]

Comparable = Any  # a value brought into an operator's domain (see `_Family.coerce`)


class ChoiceRuleError(ValueError):
    """A Choice rule that does not compile; `location` is its JSON pointer in the definition."""

    def __init__(self, message: str, location: str) -> None:
        super().__init__(f"{message} at {location}")
        self.message = message
        self.location = location


def _condition_path_error(path: str) -> StatesError:
    """AWS's failure when a Choice rule's path selects nothing (the interpreter adds the
    "An error occurred while executing the state ..." prefix, as for every States.Runtime)."""
    return StatesError(RUNTIME, f"Invalid path '{path}': The choice state's condition path references an invalid value.")


# --- operators ---------------------------------------------------------------------------------


class _Family(Struct, frozen=True):
    """The values one family of operators compares, and how to bring a value into that domain."""

    operand: str  # the JSON type of a literal operand, as AWS's schema errors name it
    coerce: Callable[[JSON], Comparable | None]  # None: not of this family's type


def _string_key(value: JSON) -> bytes | None:
    # UTF-16 code units, big-endian, order like Java strings (Python orders by code points).
    return value.encode("utf-16-be", "surrogatepass") if isinstance(value, str) else None


def _number(value: JSON) -> int | float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _boolean(value: JSON) -> bool | None:
    return value if isinstance(value, bool) else None


def _timestamp(value: JSON) -> Comparable | None:
    return parse_timestamp(value) if isinstance(value, str) else None


_STRING = _Family("STRING", _string_key)
_NUMERIC = _Family("NUMBER", _number)
_BOOLEAN = _Family("BOOLEAN", _boolean)
_TIMESTAMP = _Family("STRING", _timestamp)

_RELATIONS: Mapping[str, Callable[[Any, Any], bool]] = {
    "Equals": operator.eq,
    "LessThan": operator.lt,
    "GreaterThan": operator.gt,
    "LessThanEquals": operator.le,
    "GreaterThanEquals": operator.ge,
}

# Comparison operators: name -> (family, relation). Each also exists with a `Path` suffix.
_COMPARISONS: dict[str, tuple[_Family, Callable[[Any, Any], bool]]] = {
    f"{prefix}{relation_name}": (family, relation)
    for prefix, family in (("String", _STRING), ("Numeric", _NUMERIC), ("Timestamp", _TIMESTAMP))
    for relation_name, relation in _RELATIONS.items()
}
_COMPARISONS["BooleanEquals"] = (_BOOLEAN, operator.eq)

_TYPE_TESTS: dict[str, Callable[[JSON], bool]] = {
    "IsNull": lambda value: value is None,
    "IsNumeric": lambda value: _number(value) is not None,
    "IsString": lambda value: isinstance(value, str),
    "IsBoolean": lambda value: isinstance(value, bool),
    "IsTimestamp": lambda value: _timestamp(value) is not None,
}

OPERATORS: frozenset[str] = frozenset(
    {*_COMPARISONS, *(f"{name}Path" for name in _COMPARISONS), *_TYPE_TESTS, "IsPresent", "StringMatches"}
)
_BOOLEAN_OPERATORS = ("And", "Or", "Not")
_IGNORED_FIELDS = frozenset({"Comment"})


# --- conditions --------------------------------------------------------------------------------


class Comparison(Struct, frozen=True):
    """`Variable` compared with a literal (`NumericEquals: 3`) or another path (`NumericEqualsPath`)."""

    variable: JsonPath
    operator: str
    family: _Family
    relation: Callable[[Any, Any], bool]
    operand: Comparable | None = None  # the coerced literal; None when it is not of the family
    operand_path: JsonPath | None = None

    def matches(self, value: JSON, scope: ExpressionScope) -> bool:
        left = self.family.coerce(_read(self.variable, value, scope))
        if self.operand_path is None:
            right = self.operand
        else:
            right = self.family.coerce(_read(self.operand_path, value, scope))
        if left is None or right is None:
            return False
        return self.relation(left, right)


class StringMatch(Struct, frozen=True):
    """`StringMatches`: `*` matches any run of characters; `\\*` and `\\\\` are a literal `*`, `\\`."""

    variable: JsonPath
    pattern: StringMatchesPattern

    def matches(self, value: JSON, scope: ExpressionScope) -> bool:
        subject = _read(self.variable, value, scope)
        return isinstance(subject, str) and self.pattern.matches(subject)


class TypeTest(Struct, frozen=True):
    """`IsNull`, `IsNumeric`, `IsString`, `IsBoolean`, `IsTimestamp`: true or false as asked."""

    variable: JsonPath
    test: Callable[[JSON], bool]
    expected: bool

    def matches(self, value: JSON, scope: ExpressionScope) -> bool:
        return self.test(_read(self.variable, value, scope)) is self.expected


class PresenceTest(Struct, frozen=True):
    """`IsPresent`: whether `Variable` selects anything; never an error."""

    variable: JsonPath
    expected: bool

    def matches(self, value: JSON, scope: ExpressionScope) -> bool:
        try:
            self.variable.evaluate(value, scope)
        except PathNotFound:
            return not self.expected
        return self.expected


class AndRule(Struct, frozen=True):
    rules: tuple[ChoiceCondition, ...]

    def matches(self, value: JSON, scope: ExpressionScope) -> bool:
        return all(rule.matches(value, scope) for rule in self.rules)


class OrRule(Struct, frozen=True):
    rules: tuple[ChoiceCondition, ...]

    def matches(self, value: JSON, scope: ExpressionScope) -> bool:
        return any(rule.matches(value, scope) for rule in self.rules)


class NotRule(Struct, frozen=True):
    rule: ChoiceCondition

    def matches(self, value: JSON, scope: ExpressionScope) -> bool:
        return not self.rule.matches(value, scope)


def _read(path: JsonPath, value: JSON, scope: ExpressionScope) -> JSON:
    try:
        return path.evaluate(value, scope)
    except PathNotFound:
        raise _condition_path_error(path.text) from None


# --- compiling ---------------------------------------------------------------------------------


def compile_choice_rule(rule: JSON, *, location: str) -> ChoiceCondition:
    """Compile one Choice rule (without the `Next`/`Assign`/`Output` a top-level rule carries).

    A rule AWS's schema refuses raises `ChoiceRuleError` with AWS's SCHEMA_VALIDATION_FAILED text,
    located as AWS locates it: a field of the wrong type at that field (`.../Choices[0]/NumericEquals`),
    a field the rule may not have at the rule, a nested rule at its index (`.../And[1]/Not`).
    """
    if not isinstance(rule, dict):
        raise ChoiceRuleError(expected_type("OBJECT"), location)
    fields = [name for name in rule if name not in _IGNORED_FIELDS]
    unknown = [name for name in fields if name != "Variable" and name not in OPERATORS and name not in _BOOLEAN_OPERATORS]
    if unknown:
        raise ChoiceRuleError(f"Field '{unknown[0]}' is not supported", location)
    operators = [name for name in fields if name != "Variable"]
    if not operators:
        raise ChoiceRuleError("A Choice rule needs a comparison operator or one of And, Or, Not", location)
    if len(operators) > 1:
        raise ChoiceRuleError(f"A Choice rule may have only one operator, found {', '.join(operators)}", location)
    name = operators[0]
    if name in _BOOLEAN_OPERATORS:
        if "Variable" in rule:
            raise ChoiceRuleError("Field 'Variable' is not supported", location)
        return _compile_boolean(name, rule[name], f"{location}/{name}")
    if "Variable" not in rule:
        raise ChoiceRuleError("These fields are required: [Variable]", location)
    variable = _compile_rule_path(rule["Variable"], "Variable", location)
    return _compile_data_test(variable, name, rule[name], location)


def _compile_boolean(name: str, operand: JSON, location: str) -> ChoiceCondition:
    if name == "Not":
        if not isinstance(operand, dict):
            raise ChoiceRuleError(expected_type("OBJECT"), location)
        return NotRule(compile_choice_rule(operand, location=location))
    if not isinstance(operand, list):
        raise ChoiceRuleError(expected_type("ARRAY"), location)
    if not operand:
        raise ChoiceRuleError(EMPTY, location)
    rules = tuple(compile_choice_rule(item, location=f"{location}[{index}]") for index, item in enumerate(operand))
    return AndRule(rules) if name == "And" else OrRule(rules)


def _compile_data_test(variable: JsonPath, name: str, operand: JSON, location: str) -> ChoiceCondition:
    at_operand = f"{location}/{name}"
    if name == "IsPresent" or name in _TYPE_TESTS:
        if not isinstance(operand, bool):
            raise ChoiceRuleError(expected_type("BOOLEAN"), at_operand)
        if name == "IsPresent":
            return PresenceTest(variable, operand)
        return TypeTest(variable, _TYPE_TESTS[name], operand)
    if name == "StringMatches":
        if not isinstance(operand, str):
            raise ChoiceRuleError(expected_type("STRING"), at_operand)
        return StringMatch(variable, _wildcard_pattern(operand))
    if name.endswith("Path"):
        family, relation = _COMPARISONS[name.removesuffix("Path")]
        operand_path = _compile_rule_path(operand, name, location)
        return Comparison(variable, name, family, relation, operand_path=operand_path)
    family, relation = _COMPARISONS[name]
    coerced = family.coerce(operand)
    if coerced is None:
        # A Timestamp operand is a string first (AWS's type check), then a timestamp (its format check,
        # worded as for the Wait state's Timestamp).
        if family is _TIMESTAMP and isinstance(operand, str):
            raise ChoiceRuleError(NOT_A_TIMESTAMP, at_operand)
        raise ChoiceRuleError(expected_type(family.operand), at_operand)
    return Comparison(variable, name, family, relation, operand=coerced)


def _compile_rule_path(text: JSON, field: str, location: str) -> JsonPath:
    if not isinstance(text, str):
        raise ChoiceRuleError(expected_type("STRING"), f"{location}/{field}")
    try:
        return compile_path(text)
    except InvalidPath:
        raise ChoiceRuleError(f"The value for the field '{field}' must be a valid JSONPath", f"{location}/{field}") from None


class StringMatchesPattern(Struct, frozen=True):
    """A `StringMatches` pattern as its literal pieces between the `*`s. Matching finds each middle piece
    leftmost after the previous one (taking the first place a piece fits never loses a match when `*` is
    the only wildcard), so it takes time linear in the text per piece, where a backtracking regular
    expression takes time exponential in the number of `*`s (`*a*a*a*a*a*a*b` on a long run of a's)."""

    pieces: tuple[str, ...]  # len >= 1; the text between each pair of consecutive `*`s

    def matches(self, text: str) -> bool:
        if len(self.pieces) == 1:
            return text == self.pieces[0]
        first, *middle, last = self.pieces
        if len(text) < len(first) + len(last) or not text.startswith(first) or not text.endswith(last):
            return False
        position, stop = len(first), len(text) - len(last)
        for piece in middle:
            found = text.find(piece, position, stop)
            if found < 0:
                return False
            position = found + len(piece)
        return True


def _wildcard_pattern(pattern: str) -> StringMatchesPattern:
    """A `StringMatches` pattern: `*` is a wildcard, `\\` makes the next character literal."""
    pieces: list[str] = [""]
    escaped = False
    for character in pattern:
        if escaped:
            pieces[-1] += character
            escaped = False
        elif character == "\\":
            escaped = True
        elif character == "*":
            pieces.append("")
        else:
            pieces[-1] += character
    if escaped:
        pieces[-1] += "\\"
    return StringMatchesPattern(tuple(pieces))
