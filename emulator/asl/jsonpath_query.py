"""Indefinite JSONPath queries read as Jayway JsonPath (the implementation AWS uses) reads them.

A query is a chain of tokens after its root: properties (`.a`, `['a','b']`), indexes (`[0,2]`),
slices (`[1:3]`), wildcards (`.*`, `[*]`), deep scans (`..`) and filters (`[?(...)]`, see
`jsonpath_filter`). Jayway's rules, kept here:

- A token right after a definite part of the path ("upstream definite") fails where Jayway throws
  (a property of a non-object, an index into a non-array, a missing property before further
  steps); after an indefinite token the same situations select nothing.
- `['a','b']` as the last token gives one object per match holding those of the properties it has;
  before further tokens each property is followed in turn.
- Slices ignore their step; `[from:]` and `[:to]` count a negative bound from the end, `[from:to]`
  caps only `to` at the length and reads a negative `from` from the end.
- A filter keeps the matching items of an array, or an object itself when it matches.
- A deep scan visits a value and everything below it, objects before their members, and applies the
  next token where it can: to objects having all the named properties, to arrays for an index or
  slice, to everything for a wildcard, to what the filter accepts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable, Union

from sfn_emulator.asl.model import JSON

# Jayway keeps indexes and slice bounds in a Java int
JAVA_INT_MAX = 2**31 - 1


class QuerySyntaxError(ValueError):
    """The query does not compile; `problem` says why."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class QueryNotFound(LookupError):
    """Jayway's PathNotFoundException: `reason` is its message."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Properties:
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Indexes:
    indexes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ArraySlice:
    start: int | None
    end: int | None


@dataclass(frozen=True, slots=True)
class Wildcard:
    pass


@dataclass(frozen=True, slots=True)
class Scan:
    pass


@dataclass(frozen=True, slots=True)
class Filter:
    text: str  # as written between `[?(` and `)]`
    accepts: Callable[[JSON, JSON], bool]  # (item, root) -> keep it?


Token = Union[Properties, Indexes, ArraySlice, Wildcard, Scan, Filter]


def is_definite(token: Token, *, leaf: bool) -> bool:
    """Jayway's definite tokens: one property (or several merged as the last token), one index."""
    if isinstance(token, Properties):
        return len(token.names) == 1 or leaf
    return isinstance(token, Indexes) and len(token.indexes) == 1


class Query:
    """Compiled tokens; `find(root)` returns the list of what they select, in Jayway's order."""

    __slots__ = ("tokens",)

    def __init__(self, tokens: tuple[Token, ...]) -> None:
        self.tokens = tokens

    def find(self, root: JSON, *, require_properties: bool = False) -> list[JSON]:
        """`require_properties`: a missing property fails even where it would select nothing (Jayway's
        REQUIRE_PROPERTIES option, with which filters test whether a path exists)."""
        found: list[JSON] = []
        _Walk(self.tokens, root, found, require_properties).evaluate(0, "$", root, upstream_definite=True)
        return found

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Query) and self.tokens == other.tokens

    def __hash__(self) -> int:
        return hash(self.tokens)


class _Walk:
    """One evaluation of a query: the tokens, the root document and the results gathered."""

    def __init__(self, tokens: tuple[Token, ...], root: JSON, found: list[JSON], require_properties: bool) -> None:
        self.tokens = tokens
        self.root = root
        self.found = found
        self.require_properties = require_properties

    def evaluate(self, at: int, path: str, node: JSON, *, upstream_definite: bool,
                 array_index: int | None = None) -> None:
        if at == len(self.tokens):
            self.found.append(node)
            return
        token = self.tokens[at]
        leaf = at == len(self.tokens) - 1
        definite = upstream_definite and is_definite(token, leaf=leaf)
        if isinstance(token, Properties):
            self._properties(at, token, path, node, upstream_definite, definite, leaf, array_index)
        elif isinstance(token, (Indexes, ArraySlice)):
            self._indexes(at, token, path, node, upstream_definite, definite)
        elif isinstance(token, Wildcard):
            if isinstance(node, dict):
                for name, value in node.items():
                    self.evaluate(at + 1, f"{path}['{name}']", value, upstream_definite=False)
            elif isinstance(node, list):
                for index, value in enumerate(node):
                    self.evaluate(at + 1, f"{path}[{index}]", value, upstream_definite=False)
        elif isinstance(token, Scan):
            self._scan(at + 1, path, node)
        else:
            self._filter(at, token, path, node, upstream_definite)

    def _properties(self, at: int, token: Properties, path: str, node: JSON, upstream_definite: bool,
                    definite: bool, leaf: bool, array_index: int | None) -> None:
        if not isinstance(node, dict):
            if upstream_definite:
                shown = "[" + ", ".join(f"'{name}'" for name in token.names) + "]"
                raise QueryNotFound(
                    f"Expected to find an object with property {shown} in path {path} but found "
                    f"'{java_class(node)}'. This is not a json object according to the JsonProvider: "
                    "'com.jayway.jsonpath.spi.json.JsonSmartJsonProvider'."
                )
            return
        if len(token.names) > 1 and leaf:
            self.found.append({name: node[name] for name in token.names if name in node})
            return
        for name in token.names:
            here = f"{path}['{name}']"
            if name not in node:
                if self.require_properties:
                    raise QueryNotFound(f"No results for path: {here}")
                if not leaf and definite:
                    raise QueryNotFound(f"Missing property in path {here}")
                continue
            if leaf and array_index is not None and not self._follows_index(array_index):
                continue  # Jayway's quirk after a deep scan of an array, kept for fidelity
            self.evaluate(at + 1, here, node[name], upstream_definite=definite)

    def _follows_index(self, array_index: int) -> bool:
        """Jayway keeps a leaf property reached from the array a deep scan found only when the
        token before the query's last one is that very index."""
        before_last = self.tokens[-2] if len(self.tokens) > 1 else None
        return isinstance(before_last, Indexes) and before_last.indexes == (array_index,)

    def _indexes(self, at: int, token: Indexes | ArraySlice, path: str, node: JSON, upstream_definite: bool,
                 definite: bool) -> None:
        if not isinstance(node, list):
            if upstream_definite:
                if node is None:
                    raise QueryNotFound(f"The path {path} is null")
                raise QueryNotFound(f"Filter: {_shown(token)} can only be applied to arrays. "
                                    f"Current context is: {java_text(node)}")
            return
        length = len(node)
        for index in _positions(token, length):
            actual = index + length if index < 0 else index
            if 0 <= actual < length:
                self.evaluate(at + 1, f"{path}[{index}]", node[actual], upstream_definite=definite)

    def _filter(self, at: int, token: Filter, path: str, node: JSON, upstream_definite: bool) -> None:
        if isinstance(node, dict):
            if token.accepts(node, self.root):
                self.evaluate(at + 1, path, node, upstream_definite=False)
        elif isinstance(node, list):
            for index, item in enumerate(node):
                if token.accepts(item, self.root):
                    self.evaluate(at + 1, f"{path}[{index}]", item, upstream_definite=False)
        elif upstream_definite:
            raise QueryNotFound(f"Filter: [?] can not be applied to primitives. "
                                f"Current context is: {java_text(node)}")

    def _scan(self, at: int, path: str, node: JSON) -> None:
        """Jayway's deep scan: `at` is the token the scan applies wherever it matches."""
        target = self.tokens[at]
        leaf = at == len(self.tokens) - 1
        if isinstance(node, dict):
            if self._scan_matches(target, node):
                self.evaluate(at, path, node, upstream_definite=False)
            for name, value in node.items():
                self._scan(at, f"{path}['{name}']", value)
        elif isinstance(node, list):
            if self._scan_matches(target, node):
                if leaf:
                    self.evaluate(at, path, node, upstream_definite=False)
                else:
                    for index, item in enumerate(node):
                        self.evaluate(at + 1, f"{path}[{index}]", item, upstream_definite=False,
                                      array_index=index)
            for index, item in enumerate(node):
                self._scan(at, f"{path}[{index}]", item)

    def _scan_matches(self, target: Token, node: JSON) -> bool:
        if isinstance(target, Properties):
            return isinstance(node, dict) and all(name in node for name in target.names)
        if isinstance(target, (Indexes, ArraySlice)):
            return isinstance(node, list)
        if isinstance(target, Filter):
            return target.accepts(node, self.root)
        return isinstance(target, Wildcard)


def compile_tokens(text: str, position: int, compile_filter: Callable[[str], Filter]) -> tuple[Token, ...]:
    """The tokens of `text` from `position` (just after the root), as Jayway's compiler reads them."""
    tokens: list[Token] = []
    end = len(text)
    while position < end:
        char = text[position]
        if text.startswith("..", position):
            tokens.append(Scan())
            position += 2
            if position == end:
                raise QuerySyntaxError("a path cannot end with '..'")
            if text[position] == "[":
                continue
            position = _dot_step(text, position, tokens)
        elif char == ".":
            position += 1
            if position == end:
                raise QuerySyntaxError("a path cannot end with '.'")
            position = _dot_step(text, position, tokens)
        elif char == "[":
            position = _bracket_token(text, position, tokens, compile_filter)
        else:
            raise QuerySyntaxError(f"unexpected character {char!r} at position {position}")
    return tuple(tokens)


def _dot_step(text: str, position: int, tokens: list[Token]) -> int:
    """After `.` or `..`: `*` or a property name running to the next `.` or `[`."""
    if text[position] == "*":
        tokens.append(Wildcard())
        return position + 1
    name_end = position
    while name_end < len(text) and text[name_end] not in ".[":
        name_end += 1
    name = text[position:name_end]
    if not name:
        raise QuerySyntaxError(f"a property name is missing at position {position}")
    if " " in name:
        raise QuerySyntaxError("use bracket notation ['my prop'] for a property name with blanks")
    tokens.append(Properties((name,)))
    return name_end


_SLICE_OR_INDEXES = re.compile(r"[\d\s,:-]*")


def _bracket_token(text: str, position: int, tokens: list[Token], compile_filter: Callable[[str], Filter]) -> int:
    cursor = _skip_blanks(text, position + 1)
    if text.startswith("?", cursor):
        if not text.startswith("(", cursor + 1):
            raise QuerySyntaxError("a filter must be written [?(<expression>)]")
        close = _closing_parenthesis(text, cursor + 1)
        after = _skip_blanks(text, close + 1)
        if not text.startswith("]", after):
            raise QuerySyntaxError(f"expected ']' after the filter at position {after}")
        tokens.append(compile_filter(text[cursor + 2 : close]))
        return after + 1
    if text.startswith("*", cursor):
        after = _skip_blanks(text, cursor + 1)
        if not text.startswith("]", after):
            raise QuerySyntaxError(f"expected ']' at position {after}")
        tokens.append(Wildcard())
        return after + 1
    if cursor < len(text) and text[cursor] in "'\"":
        names: list[str] = []
        while True:
            name, cursor = quoted_name(text, cursor)
            names.append(name)
            cursor = _skip_blanks(text, cursor)
            if text.startswith("]", cursor):
                tokens.append(Properties(tuple(names)))
                return cursor + 1
            if not text.startswith(",", cursor):
                raise QuerySyntaxError(f"expected ',' or ']' at position {cursor}")
            cursor = _skip_blanks(text, cursor + 1)
            if cursor >= len(text) or text[cursor] not in "'\"":
                raise QuerySyntaxError(f"expected a quoted property name at position {cursor}")
    body_end = _SLICE_OR_INDEXES.match(text, cursor).end()
    if not text.startswith("]", body_end):
        raise QuerySyntaxError(f"a property name in brackets must be quoted: ['name'] (position {cursor})")
    body = text[cursor:body_end].strip()
    tokens.append(_slice(body) if ":" in body else _indexes(body))
    return body_end + 1


def _slice(body: str) -> ArraySlice:
    """Jayway's slice: `from:to[:step]`, the step ignored, at least one bound given."""
    parts = [part.strip() for part in body.split(":")]
    start = _java_int(parts[0]) if parts[0] else None
    end = _java_int(parts[1]) if len(parts) > 1 and parts[1] else None
    if start is None and end is None:
        raise QuerySyntaxError(f"the slice [{body}] needs a start or an end")
    return ArraySlice(start, end)


def _indexes(body: str) -> Indexes:
    parts = [part.strip() for part in body.split(",")]
    if not all(parts):
        raise QuerySyntaxError(f"[{body}] is not a list of indexes")
    return Indexes(tuple(_java_int(part) for part in parts))


def _java_int(digits: str) -> int:
    try:
        value = int(digits)
    except ValueError:
        raise QuerySyntaxError(f"{digits!r} is not an integer") from None
    if abs(value) > JAVA_INT_MAX:
        raise QuerySyntaxError(f"the number {digits} is too large")
    return value


def quoted_name(text: str, position: int) -> tuple[str, int]:
    """A quoted property name, taken literally as AWS does: a backslash only keeps the next
    character from closing the quotes (`$['a\\"b']` names the property `a\\"b`)."""
    quote = text[position]
    cursor = position + 1
    while cursor < len(text):
        if text[cursor] == "\\":
            cursor += 2
            continue
        if text[cursor] == quote:
            return text[position + 1 : cursor], cursor + 1
        cursor += 1
    raise QuerySyntaxError(f"unterminated property name starting at position {position}")


def _closing_parenthesis(text: str, position: int) -> int:
    """The index of the `)` closing the `(` at `position`, skipping quoted text."""
    depth = 0
    cursor = position
    while cursor < len(text):
        char = text[cursor]
        if char in "'\"":
            cursor = quoted_name(text, cursor)[1]
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return cursor
        cursor += 1
    raise QuerySyntaxError(f"the filter starting at position {position} is not closed")


def _skip_blanks(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\n\r":
        position += 1
    return position


def _positions(token: Indexes | ArraySlice, length: int) -> range | tuple[int, ...]:
    if isinstance(token, Indexes):
        return token.indexes
    start, end = token.start, token.end
    if end is None:
        first = max(0, start + length if start < 0 else start)  # type: ignore[operator]
        return range(first, length)
    if start is None:
        return range(0, min(length, end + length if end < 0 else end))
    return range(start, min(length, end))


def _shown(token: Indexes | ArraySlice) -> str:
    if isinstance(token, Indexes):
        return "[" + ",".join(str(index) for index in token.indexes) + "]"
    return f"[{'' if token.start is None else token.start}:{'' if token.end is None else token.end}]"


def java_class(value: JSON) -> str:
    """The Java class Jayway's default JSON provider holds `value` in."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "java.lang.Boolean"
    if isinstance(value, str):
        return "java.lang.String"
    if isinstance(value, int):
        return "java.lang.Integer" if -(2**31) <= value < 2**31 else "java.lang.Long"
    if isinstance(value, float):
        return "java.lang.Double"
    if isinstance(value, dict):
        return "net.minidev.json.JSONObject"
    return "net.minidev.json.JSONArray"


def java_text(value: JSON) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
