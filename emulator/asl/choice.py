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
from sfn_emulator.asl.model import JSON, ChoiceCondition, Scope
from sfn_emulator.asl.paths import InvalidPath, JsonPath, PathNotFound, compile_path
from sfn_emulator.asl.timestamps import parse_timestamp

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

    operand: str  # how the literal operand is described in compile errors
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


_STRING = _Family("a string", _string_key)
_NUMERIC = _Family("a number", _number)
_BOOLEAN = _Family("a boolean", _boolean)
_TIMESTAMP = _Family("a string", _timestamp)

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

    def matches(self, value: JSON, scope: Scope) -> bool:
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
    pattern: Wildcard

    def matches(self, value: JSON, scope: Scope) -> bool:
        subject = _read(self.variable, value, scope)
        return isinstance(subject, str) and self.pattern.matches(subject)


class TypeTest(Struct, frozen=True):
    """`IsNull`, `IsNumeric`, `IsString`, `IsBoolean`, `IsTimestamp`: true or false as asked."""

    variable: JsonPath
    test: Callable[[JSON], bool]
    expected: bool

    def matches(self, value: JSON, scope: Scope) -> bool:
        return self.test(_read(self.variable, value, scope)) is self.expected


class PresenceTest(Struct, frozen=True):
    """`IsPresent`: whether `Variable` selects anything; never an error."""

    variable: JsonPath
    expected: bool

    def matches(self, value: JSON, scope: Scope) -> bool:
        try:
            self.variable.evaluate(value, scope)
        except PathNotFound:
            return not self.expected
        return self.expected


class AndRule(Struct, frozen=True):
    rules: tuple[ChoiceCondition, ...]

    def matches(self, value: JSON, scope: Scope) -> bool:
        return all(rule.matches(value, scope) for rule in self.rules)


class OrRule(Struct, frozen=True):
    rules: tuple[ChoiceCondition, ...]

    def matches(self, value: JSON, scope: Scope) -> bool:
        return any(rule.matches(value, scope) for rule in self.rules)


class NotRule(Struct, frozen=True):
    rule: ChoiceCondition

    def matches(self, value: JSON, scope: Scope) -> bool:
        return not self.rule.matches(value, scope)


def _read(path: JsonPath, value: JSON, scope: Scope) -> JSON:
    try:
        return path.evaluate(value, scope)
    except PathNotFound:
        raise _condition_path_error(path.text) from None


# --- compiling ---------------------------------------------------------------------------------


def compile_choice_rule(rule: JSON, *, location: str) -> ChoiceCondition:
    """Compile one Choice rule (without the `Next`/`Assign`/`Output` a top-level rule carries)."""
    if not isinstance(rule, dict):
        raise ChoiceRuleError("A Choice rule must be a JSON object", location)
    fields = [name for name in rule if name not in _IGNORED_FIELDS]
    unknown = [name for name in fields if name != "Variable" and name not in OPERATORS and name not in _BOOLEAN_OPERATORS]
    if unknown:
        raise ChoiceRuleError(f"The field '{unknown[0]}' is not supported in a Choice rule", location)
    operators = [name for name in fields if name != "Variable"]
    if not operators:
        raise ChoiceRuleError("A Choice rule needs a comparison operator or one of And, Or, Not", location)
    if len(operators) > 1:
        raise ChoiceRuleError(f"A Choice rule may have only one operator, found {', '.join(operators)}", location)
    name = operators[0]
    if name in _BOOLEAN_OPERATORS:
        if "Variable" in rule:
            raise ChoiceRuleError(f"A Choice rule with '{name}' may not have a 'Variable'", location)
        return _compile_boolean(name, rule[name], f"{location}/{name}")
    if "Variable" not in rule:
        raise ChoiceRuleError(f"The operator '{name}' needs a 'Variable'", location)
    variable = _compile_rule_path(rule["Variable"], "Variable", location)
    return _compile_data_test(variable, name, rule[name], location)


def _compile_boolean(name: str, operand: JSON, location: str) -> ChoiceCondition:
    if name == "Not":
        if not isinstance(operand, dict):
            raise ChoiceRuleError("The value of 'Not' must be a Choice rule object", location)
        return NotRule(compile_choice_rule(operand, location=location))
    if not isinstance(operand, list) or not operand:
        raise ChoiceRuleError(f"The value of '{name}' must be a non-empty array of Choice rules", location)
    rules = tuple(compile_choice_rule(item, location=f"{location}/{index}") for index, item in enumerate(operand))
    return AndRule(rules) if name == "And" else OrRule(rules)


def _compile_data_test(variable: JsonPath, name: str, operand: JSON, location: str) -> ChoiceCondition:
    if name == "IsPresent" or name in _TYPE_TESTS:
        if not isinstance(operand, bool):
            raise ChoiceRuleError(f"The value of '{name}' must be a boolean", location)
        if name == "IsPresent":
            return PresenceTest(variable, operand)
        return TypeTest(variable, _TYPE_TESTS[name], operand)
    if name == "StringMatches":
        if not isinstance(operand, str):
            raise ChoiceRuleError("The value of 'StringMatches' must be a string", location)
        return StringMatch(variable, _wildcard_pattern(operand))
    if name.endswith("Path"):
        family, relation = _COMPARISONS[name.removesuffix("Path")]
        operand_path = _compile_rule_path(operand, name, location)
        return Comparison(variable, name, family, relation, operand_path=operand_path)
    family, relation = _COMPARISONS[name]
    coerced = family.coerce(operand)
    # A Timestamp literal only has to be a string: one that is not a timestamp never matches.
    valid = isinstance(operand, str) if family is _TIMESTAMP else coerced is not None
    if not valid:
        raise ChoiceRuleError(f"The value of '{name}' must be {family.operand}", location)
    return Comparison(variable, name, family, relation, operand=coerced)


def _compile_rule_path(text: JSON, field: str, location: str) -> JsonPath:
    if not isinstance(text, str):
        raise ChoiceRuleError(f"The value of '{field}' must be a path string", location)
    try:
        return compile_path(text)
    except InvalidPath as error:
        raise ChoiceRuleError(f"The value of '{field}' is not a valid path: {error.problem}", location) from None


class Wildcard(Struct, frozen=True):
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


def _wildcard_pattern(pattern: str) -> Wildcard:
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
    return Wildcard(tuple(pieces))
