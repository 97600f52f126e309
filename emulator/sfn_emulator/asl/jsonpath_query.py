"""Indefinite JSONPath queries read as Jayway JsonPath (the implementation AWS uses) reads them.

A query is a chain of tokens after its root: properties (`.a`, `['a','b']`), indexes (`[0,2]`),
slices (`[1:3]`), wildcards (`.*`, `[*]`), deep scans (`..`) and filters (`[?(...)]`, see
`jsonpath_filter`), compiled by `jsonpath_tokens`. Jayway's rules, kept here:

- A token right after a definite part of the path ("upstream definite") fails where Jayway throws
  (a property of a non-object, an index into a non-array, a missing property before further
  steps: `QueryNotFound`, Jayway's PathNotFoundException; a filter on a primitive: `QueryInvalid`,
  its InvalidPathException, but a filter on null finds nothing, as an index on null does); after an
  indefinite token the same situations select nothing. Step Functions reads a `QueryNotFound` of a
  whole query as "nothing matched" (see `paths`).
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


from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.jsonpath_tokens import (
    ArraySlice,
    Filter,
    Indexes,
    Properties,
    Scan,
    Token,
    Wildcard,
    is_definite,
)
from sfn_emulator.asl.model import JSON


class QueryNotFound(LookupError):
    """Jayway's PathNotFoundException: `reason` is its message."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class QueryInvalid(ValueError):
    """Jayway's InvalidPathException raised while evaluating (a filter applied to a primitive):
    `reason` is its message. Unlike `QueryNotFound`, it is no "nothing found"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


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
        elif node is None and upstream_definite:
            raise QueryNotFound(f"The path {path} is null")  # null is missing data, as for an index
        elif upstream_definite:
            raise QueryInvalid(f"Filter: [?] can not be applied to primitives. "
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
    return compact_json(value)
