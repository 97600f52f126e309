"""The draft's expressions: JsonPath inside `{{ }}`, evaluated with the emulator's JSONPath engine
(Jayway's reading, as for ASL paths).

- A string that is one `{{ expr }}` stands for the value `expr` selects (a missing member: null);
  a string mixing text and expressions is that text with each expression's value in it (strings as
  they are, other values as JSON). `expr.length()` is the length of the array or string selected.
- A condition (switch `condition`, transition, retry and onError `expression`) is true when its
  expression selects something: a value that is not null, an empty array, an empty object or false.
- A data filter path (`dataInputPath`, `dataOutputPath`, `dataResultsPath`) selects part of the data
  keeping its name: `{{ $.customer }}` gives `{"customer": ...}`, so state data stays an object that
  results and events are merged into (the draft's worked example, "Using multiple filters"); a path
  not ending in a member name gives the value itself. A path selecting nothing filters nothing.
"""

from __future__ import annotations

import re
from typing import Any

from msgspec import Struct

from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.paths import InvalidPath, JsonPath, PathNotFound, compile_path
from sfn_emulator.dialects.json_values import map_leaves

JSON = Any
_EXPRESSION = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_LENGTH = ".length()"


class ExpressionError(ValueError):
    """An expression that does not compile; the message names it and says why."""


class _NoContext:
    """Expressions read the state data only (no `$$`, no variables)."""

    @property
    def context_object(self) -> dict[str, JSON]:
        return {}

    def variable(self, name: str) -> JSON:
        raise KeyError(name)


_SCOPE = _NoContext()


class BracedExpression(Struct, frozen=True):
    """One compiled `{{ }}` expression."""

    text: str
    path: JsonPath
    length: bool = False

    def select(self, data: JSON) -> JSON:
        try:
            value = self.path.evaluate(data, _SCOPE)
        except PathNotFound:
            return None
        if self.length:
            return len(value) if isinstance(value, (list, str, dict)) else None
        return value

    @property
    def member_name(self) -> str | None:
        """The name the path ends in, when it is a definite path ending in a member."""
        if self.path.is_definite and self.path.steps and isinstance(self.path.steps[-1], str) and not self.length:
            return self.path.steps[-1]
        return None


def compile_query(text: str) -> BracedExpression:
    body = text.strip()
    length = body.endswith(_LENGTH)
    if length:
        body = body[: -len(_LENGTH)].rstrip()
    try:
        return BracedExpression(text, compile_path(body), length)
    except InvalidPath as invalid:
        raise ExpressionError(f"The expression '{{{{{text}}}}}' is not a JsonPath: {invalid.problem}") from None


def expressions_in(text: str) -> list[str]:
    return [match.group(1) for match in _EXPRESSION.finditer(text)]


class Template(Struct, frozen=True):
    """A JSON value whose strings may hold expressions, compiled once."""

    value: JSON

    def evaluate(self, data: JSON) -> JSON:
        return map_leaves(self.value, lambda leaf: _resolved(leaf, data))


class _Text(Struct, frozen=True):
    parts: tuple[str | BracedExpression, ...]
    whole: BracedExpression | None  # the string is this one expression


def compile_template(value: JSON) -> Template:
    """A template of `value`; ExpressionError for the first expression that does not compile."""
    return Template(map_leaves(value, _compiled))


def _compiled(value: JSON) -> JSON:
    """A string with `{{ }}` expressions as a `_Text`; any other leaf as it is."""
    if not isinstance(value, str) or "{{" not in value:
        return value
    pieces: list[str | BracedExpression] = []
    position = 0
    for match in _EXPRESSION.finditer(value):
        if match.start() > position:
            pieces.append(value[position:match.start()])
        pieces.append(compile_query(match.group(1)))
        position = match.end()
    if position < len(value):
        pieces.append(value[position:])
    whole = pieces[0] if len(pieces) == 1 and isinstance(pieces[0], BracedExpression) else None
    return _Text(tuple(pieces), whole)


def _resolved(value: JSON, data: JSON) -> JSON:
    """A `_Text` filled from `data`; any other leaf as it is."""
    if not isinstance(value, _Text):
        return value
    if value.whole is not None:
        return value.whole.select(data)
    return "".join(piece if isinstance(piece, str) else _shown(piece.select(data)) for piece in value.parts)


def _shown(value: JSON) -> str:
    return value if isinstance(value, str) else compact_json(value)


class Condition(Struct, frozen=True):
    """A boolean expression: true when its (first) expression selects something."""

    query: BracedExpression

    def holds(self, data: JSON) -> bool:
        return truthy(self.query.select(data))


def compile_condition(text: str) -> Condition:
    found = expressions_in(text)
    if not found:
        raise ExpressionError(f"'{text}' holds no {{{{ }}}} expression")
    return Condition(compile_query(found[0]))


def truthy(value: JSON) -> bool:
    return value not in (None, False, [], {})


class Selector(Struct, frozen=True):
    """A data filter path (see the module docstring)."""

    query: BracedExpression

    def select(self, data: JSON) -> JSON:
        """What the filter keeps of `data`; None when the path selects nothing."""
        value = self.query.select(data)
        if value is None:
            return None
        name = self.query.member_name
        return {name: value} if name is not None else value


def compile_selector(text: str) -> Selector:
    found = expressions_in(text)
    return Selector(compile_query(found[0] if found else text))


def merged(data: JSON, addition: JSON) -> JSON:
    """`addition` merged into state data: objects member by member, recursively; anything else
    that is not an object leaves the data as it is (state data is an object)."""
    if not isinstance(addition, dict) or not isinstance(data, dict):
        return data if not isinstance(addition, dict) else addition
    result = dict(data)
    for key, value in addition.items():
        result[key] = merged(result[key], value) if isinstance(result.get(key), dict) and isinstance(value, dict) else value
    return result
