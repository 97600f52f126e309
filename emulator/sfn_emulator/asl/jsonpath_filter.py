"""JSONPath filter expressions (`[?(...)]`) as Jayway JsonPath compiles and evaluates them.

Grammar: `||` of `&&` of operands; an operand is `!operand`, `(expression)`, a path alone (an
existence check: `@.a`, `!@.a`), or `value operator value`. Values are paths from the item (`@`) or
the root (`$`), strings in single or double quotes, numbers, `true`/`false`/`null`, JSON arrays or
objects (single quotes allowed), `/regex/flags`, and unquoted words, read as text (see `_BARE_WORD`).
A bare literal is not an expression.

Operators follow Jayway's evaluators: `==`/`!=` compare numbers with numbers *or numeric text*
(`42 == '42'`), JSON with JSON; `===`/`!==` also require the same kind; `< <= > >=` compare numbers
with numbers and text with text only; `=~` fully matches text against a regex; `in`, `nin`,
`contains`, `subsetof`, `anyof`, `noneof`, `size`, `empty` work on lists. A path that finds nothing
is undefined, equal to nothing (so `!=` holds). A path ends at a blank, an operator character
(`< > = ~ !`), `/` or the closing parenthesis, so `@.a+1` names the property `a+1` and `@.a/2`
is refused, as in Jayway.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any, Callable

from sfn_emulator.asl.bounded_regex import BoundedPattern
from sfn_emulator.asl.jsonpath_query import Query, QueryInvalid, QueryNotFound
from sfn_emulator.asl.jsonpath_tokens import Filter, QuerySyntaxError, compile_tokens, is_definite, quoted_name
from sfn_emulator.asl.model import JSON

Predicate = Callable[[JSON, JSON], bool]
Operand = Callable[[JSON, JSON], "Node"]

_UNDEFINED = ("undefined", None)
_OPERATORS = ("===", "!==", "==", "!=", "<=", ">=", "=~", "<", ">")
_WORD_OPERATORS = ("subsetof", "contains", "anyof", "noneof", "empty", "size", "nin", "in")
_OPERATOR_CHARS = "<>=~!"
_NUMBER = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# An unquoted word compared in a filter, `[?(@.status==completed)]`: Step Functions accepts it (AWS's
# published samples use it, e.g. `[?(@.TargetLanguageCode==es)]` in step-functions-workflows-collection's
# parallel-translate) and the samples rely on it reading as the text it spells. It ends at a blank, a
# parenthesis, an operator character, `&`, `|` or a quote.
_BARE_WORD = re.compile(r"[A-Za-z_][^\s()<>=~!&|'\"]*")

Node = tuple[str, Any]  # (kind, value): undefined, number (Decimal), string, boolean, null, json, pattern


def compile_filter(text: str) -> Filter:
    """The Filter token for the expression between `[?(` and `)]`."""
    parser = _Parser(text)
    predicate = parser.expression()
    parser.blanks()
    if not parser.done():
        raise QuerySyntaxError(f"unexpected text in the filter at '{text[parser.position:]}'")
    return Filter(text, predicate)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0

    def done(self) -> bool:
        return self.position >= len(self.text)

    def blanks(self) -> None:
        while not self.done() and self.text[self.position] in " \t\n\r":
            self.position += 1

    def take(self, word: str) -> bool:
        self.blanks()
        if self.text.startswith(word, self.position):
            self.position += len(word)
            return True
        return False

    def expression(self) -> Predicate:
        terms = [self.conjunction()]
        while self.take("||"):
            terms.append(self.conjunction())
        return terms[0] if len(terms) == 1 else (lambda item, root: any(term(item, root) for term in terms))

    def conjunction(self) -> Predicate:
        factors = [self.operand()]
        while self.take("&&"):
            factors.append(self.operand())
        return factors[0] if len(factors) == 1 else (lambda item, root: all(f(item, root) for f in factors))

    def operand(self) -> Predicate:
        self.blanks()
        start = self.position
        if self.take("!"):
            self.blanks()
            if self.done() or self.text[self.position] not in "@$":
                negated = self.operand()
                return lambda item, root: not negated(item, root)
            self.position = start
        if self.take("("):
            inner = self.expression()
            if not self.take(")"):
                raise QuerySyntaxError("a parenthesis in the filter is not closed")
            return inner
        return self.comparison()

    def comparison(self) -> Predicate:
        self.blanks()
        negated_existence = self.text.startswith("!", self.position)
        if negated_existence:
            self.position += 1
        left, exists = self.value()
        operator = self.operator()
        if operator is None:
            if exists is None:
                raise QuerySyntaxError("a filter needs a comparison or a path to test")
            return (lambda item, root: not exists(item, root)) if negated_existence else exists
        if negated_existence:
            raise QuerySyntaxError("'!' can only negate a path or a parenthesised expression")
        right, _ = self.value()
        evaluate = _EVALUATORS[operator]
        return lambda item, root: evaluate(left(item, root), right(item, root))

    def operator(self) -> str | None:
        self.blanks()
        for operator in _OPERATORS:
            if self.text.startswith(operator, self.position):
                self.position += len(operator)
                return operator
        if not self.done() and self.text[self.position] == "=":
            raise QuerySyntaxError("'=' is not an operator; compare with '=='")
        for word in _WORD_OPERATORS:
            if self.text.startswith(word, self.position) and not self.text[self.position + len(word):][:1].isalnum():
                self.position += len(word)
                return word
        return None

    def value(self) -> tuple[Operand, Predicate | None]:
        """The next value, and for a path the test of whether it exists (None for a literal)."""
        self.blanks()
        if self.done():
            raise QuerySyntaxError("a filter value is missing")
        char = self.text[self.position]
        if char in "@$":
            return self.path()
        if char in "'\"":
            name, self.position = quoted_name(self.text, self.position)
            node: Node = ("string", _unescape(name))
        elif char in "[{":
            node = ("json", self.json_literal())
        elif char == "/":
            node = ("pattern", self.regex())
        else:
            node = self.literal()
        return (lambda item, root: node), None

    def literal(self) -> Node:
        for word, node in (("true", ("boolean", True)), ("false", ("boolean", False)), ("null", ("null", None))):
            if self.text.startswith(word, self.position):
                self.position += len(word)
                return node
        number = _NUMBER.match(self.text, self.position)
        if number:
            self.position = number.end()
            return ("number", Decimal(number.group()))
        word = _BARE_WORD.match(self.text, self.position)
        if not word:
            raise QuerySyntaxError(f"unexpected text in the filter at '{self.text[self.position:]}'")
        self.position = word.end()
        return ("string", word.group())

    def json_literal(self) -> JSON:
        opening = self.text[self.position]
        closing = "]" if opening == "[" else "}"
        depth, cursor = 0, self.position
        while cursor < len(self.text):
            char = self.text[cursor]
            if char in "'\"":
                cursor = quoted_name(self.text, cursor)[1]
                continue
            depth += char == opening
            depth -= char == closing
            cursor += 1
            if depth == 0:
                break
        literal = self.text[self.position : cursor]
        self.position = cursor
        try:  # json-smart, Jayway's parser, also takes single-quoted strings
            return json.loads(re.sub(r"'((?:[^'\\]|\\.)*)'", lambda m: json.dumps(m.group(1)), literal))
        except ValueError:
            raise QuerySyntaxError(f"{literal} is not a JSON value") from None

    def regex(self) -> BoundedPattern:
        end = self.position + 1
        while end < len(self.text) and self.text[end] != "/":
            end += 2 if self.text[end] == "\\" else 1
        if end >= len(self.text):
            raise QuerySyntaxError("a regular expression is not closed")
        flags_end = end + 1
        while flags_end < len(self.text) and self.text[flags_end].isalpha():
            flags_end += 1
        pattern = self.text[self.position + 1 : end]
        flags = re.IGNORECASE if "i" in self.text[end + 1 : flags_end] else 0
        self.position = flags_end
        try:
            return BoundedPattern(pattern, flags)
        except re.error as error:
            raise QuerySyntaxError(f"invalid regular expression /{pattern}/: {error}") from None

    def path(self) -> tuple[Operand, Predicate]:
        start = self.position
        depth = 0
        while not self.done():
            char = self.text[self.position]
            if char in "'\"" and depth:
                self.position = quoted_name(self.text, self.position)[1]
                continue
            if char == "[":
                depth += 1
            elif char == "]":
                depth -= 1
            elif depth == 0 and (char in _OPERATOR_CHARS or char in " \t)/"):
                break
            self.position += 1
        text = self.text[start : self.position]
        from_root = text.startswith("$")
        tokens = compile_tokens(text, 1, compile_filter)
        definite = all(is_definite(token, leaf=i == len(tokens) - 1) for i, token in enumerate(tokens))
        query = Query(tokens)

        def read(item: JSON, root: JSON) -> Node:
            try:
                found = query.find(root if from_root else item)
            except (QueryNotFound, QueryInvalid):
                return _UNDEFINED
            if not definite:
                return ("json", found)
            return _node(found[0]) if found else _UNDEFINED

        def exists(item: JSON, root: JSON) -> bool:
            try:
                found = query.find(root if from_root else item, require_properties=True)
            except (QueryNotFound, QueryInvalid):
                return False
            return bool(found) or not definite

        return read, exists


def _node(value: JSON) -> Node:
    if value is None:
        return ("null", None)
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, (int, float)):
        return ("number", Decimal(repr(value)))
    if isinstance(value, str):
        return ("string", value)
    return ("json", value)


def _unescape(text: str) -> str:
    """A string literal's escapes, as Jayway reads them: `\\uXXXX`, `\\n`, `\\t`, `\\r`, else the character."""
    def replace(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape.startswith("u"):
            return chr(int(escape[1:], 16))
        return {"n": "\n", "t": "\t", "r": "\r"}.get(escape, escape)

    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", replace, text)


def _number(node: Node) -> Decimal | None:
    if node[0] == "number":
        return node[1]  # type: ignore[no-any-return]
    if node[0] == "string":
        try:
            return Decimal(node[1])
        except InvalidOperation:
            return None
    return None


def _text(node: Node) -> str | None:
    if node[0] == "string":
        return node[1]  # type: ignore[no-any-return]
    if node[0] == "number":
        return str(node[1])
    return None


def _equal(left: Node, right: Node) -> bool:
    """Jayway's ValueNode equality, from the left operand's point of view."""
    kind = left[0]
    if kind == "number" and right[0] in ("number", "string"):
        other = _number(right)
        return other is not None and left[1] == other
    if kind == "string" and right[0] in ("string", "number"):
        return left[1] == _text(right)
    if kind == "json" and right[0] == "json":
        return _json_equal(left[1], right[1])
    if kind in ("boolean", "null"):
        return right[0] == kind and left[1] == right[1]
    return False


def _json_equal(left: JSON, right: JSON) -> bool:
    return json.dumps(left, sort_keys=True) == json.dumps(right, sort_keys=True)


def _compare(left: Node, right: Node) -> int | None:
    if left[0] == right[0] and left[0] in ("number", "string"):
        return (left[1] > right[1]) - (left[1] < right[1])
    return None


def _values(node: Node) -> list[Node] | None:
    """A JSON array operand as the list of its values (Jayway's ValueListNode)."""
    if node[0] == "json" and isinstance(node[1], list):
        return [_node(value) for value in node[1]]
    return None


def _in(left: Node, right: Node) -> bool:
    values = _values(right)
    return values is not None and any(_equal(value, left) for value in values)


def _contains(left: Node, right: Node) -> bool:
    if left[0] == "string" and right[0] == "string":
        return right[1] in left[1]
    values = _values(left)
    return values is not None and any(_equal(value, right) for value in values)


def _subset(left: Node, right: Node) -> bool:
    mine, theirs = _values(left), _values(right)
    return mine is not None and theirs is not None and all(any(_equal(a, b) for b in theirs) for a in mine)


def _any_of(left: Node, right: Node) -> bool:
    mine, theirs = _values(left), _values(right)
    return mine is not None and theirs is not None and any(any(_equal(a, b) for b in theirs) for a in mine)


def _size(left: Node, right: Node) -> bool:
    if right[0] != "number":
        return False
    if left[0] == "string" or (left[0] == "json" and isinstance(left[1], (list, dict))):
        return len(left[1]) == int(right[1])
    return False


def _empty(left: Node, right: Node) -> bool:
    if right[0] != "boolean":
        return False
    if left[0] == "string" or (left[0] == "json" and isinstance(left[1], (list, dict))):
        return (len(left[1]) == 0) == right[1]
    return False


def _matches(left: Node, right: Node) -> bool:
    if (left[0] == "pattern") == (right[0] == "pattern"):
        return False
    pattern, subject = (left, right) if left[0] == "pattern" else (right, left)
    if subject[0] in ("string", "number"):
        text = _text(subject)
    elif subject[0] == "boolean":
        text = "true" if subject[1] else "false"
    else:
        return False
    return pattern[1].fullmatch(text) is not None  # type: ignore[union-attr]


def _less(left: Node, right: Node) -> bool:
    order = _compare(left, right)
    return order is not None and order < 0


def _greater(left: Node, right: Node) -> bool:
    order = _compare(left, right)
    return order is not None and order > 0


_EVALUATORS: dict[str, Callable[[Node, Node], bool]] = {
    "==": _equal,
    "!=": lambda left, right: not _equal(left, right),
    "===": lambda left, right: left[0] == right[0] and _equal(left, right),
    "!==": lambda left, right: not (left[0] == right[0] and _equal(left, right)),
    "<": _less,
    "<=": lambda left, right: _less(left, right) or (_compare(left, right) == 0),
    ">": _greater,
    ">=": lambda left, right: _greater(left, right) or (_compare(left, right) == 0),
    "=~": _matches,
    "in": _in,
    "nin": lambda left, right: not _in(left, right),
    "contains": _contains,
    "subsetof": _subset,
    "anyof": _any_of,
    "noneof": lambda left, right: not _any_of(left, right),
    "size": _size,
    "empty": _empty,
}
