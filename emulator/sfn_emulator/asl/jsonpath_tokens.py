"""The tokens of a JSONPath query after its root, and their compiler, as Jayway JsonPath reads them:
properties (`.a`, `['a','b']`), indexes (`[0,2]`), slices (`[1:3]`), wildcards (`.*`, `[*]`), deep
scans (`..`) and filters (`[?(...)]`, compiled by `jsonpath_filter`). `jsonpath_query` walks them."""

from __future__ import annotations

import re
from typing import Callable, Union

from msgspec import Struct

from sfn_emulator.asl.model import JSON

# Jayway keeps indexes and slice bounds in a Java int
JAVA_INT_MAX = 2**31 - 1


class QuerySyntaxError(ValueError):
    """The query does not compile; `problem` says why."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


# gc=False: a record of strings, numbers and times (and tuples of them) can never be part of a reference
# cycle, so the cycle collector need not track it.
class Properties(Struct, frozen=True, gc=False):
    names: tuple[str, ...]


class Indexes(Struct, frozen=True, gc=False):
    indexes: tuple[int, ...]


class ArraySlice(Struct, frozen=True, gc=False):
    start: int | None
    end: int | None


class Wildcard(Struct, frozen=True, gc=False):
    pass


class Scan(Struct, frozen=True, gc=False):
    pass


class Filter(Struct, frozen=True):
    text: str  # as written between `[?(` and `)]`
    accepts: Callable[[JSON, JSON], bool]  # (item, root) -> keep it?


Token = Union[Properties, Indexes, ArraySlice, Wildcard, Scan, Filter]


def is_definite(token: Token, *, leaf: bool) -> bool:
    """Jayway's definite tokens: one property (or several merged as the last token), one index."""
    if isinstance(token, Properties):
        return len(token.names) == 1 or leaf
    return isinstance(token, Indexes) and len(token.indexes) == 1


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
