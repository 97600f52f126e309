"""The call syntax: a tokenizer and a recursive-descent parser that build the evaluation tree.

IntrinsicCallParser: call := NAME "(" [argument ("," argument)*] ")"
        argument := string | number | true | false | null | path | call
"""

from __future__ import annotations

import re
from typing import Mapping

from msgspec import Struct

from sfn_emulator.asl.intrinsics.arguments import Function
from sfn_emulator.asl.intrinsics.catalog import FUNCTIONS
from sfn_emulator.asl.intrinsics.errors import IntrinsicSyntaxError
from sfn_emulator.asl.intrinsics.text import split_format_template
from sfn_emulator.asl.intrinsics.tree import Call, FormatTemplate, PathArgument
from sfn_emulator.asl.model import JSON, Constant, Expression
from sfn_emulator.asl.paths import compile_path

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_KEYWORDS: Mapping[str, JSON] = {"true": True, "false": False, "null": None}
# The characters AWS reserves inside a string literal; each must be written with a backslash.
_ESCAPABLE = frozenset("'{}\\")


class _Token(Struct, frozen=True):
    kind: str  # "(", ")", ",", "string", "number", "keyword", "name", "path", "end"
    text: str  # the source text of the token
    position: int
    value: JSON = None  # decoded value of a string, number or keyword


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char.isspace():
            position += 1
        elif char in "(),":
            tokens.append(_Token(char, char, position))
            position += 1
        elif char == "'":
            token = _string_token(text, position)
            tokens.append(token)
            position += len(token.text)
        elif char == "$":
            end = _path_end(text, position)
            tokens.append(_Token("path", text[position:end], position))
            position = end
        elif number := _NUMBER.match(text, position):
            literal = number.group()
            parsed = float(literal) if any(c in literal for c in ".eE") else int(literal)
            tokens.append(_Token("number", literal, position, parsed))
            position = number.end()
        elif word := _WORD.match(text, position):
            name = word.group()
            if name in _KEYWORDS:
                tokens.append(_Token("keyword", name, position, _KEYWORDS[name]))
            else:
                tokens.append(_Token("name", name, position))
            position = word.end()
        else:
            raise _syntax_error(text, position, f"unexpected character {char!r}")
    tokens.append(_Token("end", "", len(text)))
    return tokens


def _string_token(text: str, start: int) -> _Token:
    decoded: list[str] = []
    position = start + 1
    while position < len(text):
        char = text[position]
        if char == "'":
            return _Token("string", text[start : position + 1], start, "".join(decoded))
        if char == "\\":
            escaped = text[position + 1 : position + 2]
            if escaped not in _ESCAPABLE:
                raise _syntax_error(
                    text, position, "a backslash may only escape ', {, } or \\ in a string literal"
                )
            decoded.append(escaped)
            position += 2
        else:
            decoded.append(char)
            position += 1
    raise _syntax_error(text, start, "unterminated string literal")


def _path_end(text: str, start: int) -> int:
    """Where a path argument ends: at a `,` or `)` (or blank) outside brackets and quotes."""
    depth = 0
    quote: str | None = None
    position = start
    while position < len(text):
        char = text[position]
        if quote:
            if char == "\\":
                position += 1
            elif char == quote:
                quote = None
        elif char in "'\"" and depth > 0:
            quote = char
        elif char in "[(":
            depth += 1
        elif char in "])":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (char == "," or char.isspace()):
            break
        position += 1
    return position


def _syntax_error(text: str, position: int, problem: str) -> IntrinsicSyntaxError:
    return IntrinsicSyntaxError(f"Invalid intrinsic function call {text!r}: {problem} at position {position}")


class IntrinsicCallParser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.index = 0

    def parse(self) -> Call:
        call = self._call()
        self._expect("end", "end of the expression")
        return call

    def _call(self) -> Call:
        token = self._expect("name", "an intrinsic function name")
        function = FUNCTIONS.get(token.text)
        if function is None:
            raise _syntax_error(self.text, token.position, f"unknown intrinsic function {token.text!r}")
        self._expect("(", "'(' after the function name")
        arguments: list[Expression] = []
        if self._peek().kind == ")":
            self.index += 1
            return Call(function, ())
        while True:
            arguments.append(self._argument(function, first=not arguments))
            separator = self._next()
            if separator.kind == ")":
                return Call(function, tuple(arguments))
            if separator.kind != ",":
                raise self._unexpected(separator, "',' or ')'")

    def _argument(self, function: Function, *, first: bool) -> Expression:
        token = self._peek()
        if token.kind == "name" and self.tokens[self.index + 1].kind == "(":
            return self._call()
        self.index += 1
        if token.kind == "string" and first and function.name == "States.Format":
            return FormatTemplate(split_format_template(token.text[1:-1], escapes=True))
        if token.kind in ("string", "number", "keyword"):
            return Constant(token.value)
        if token.kind == "path":
            try:
                return PathArgument(token.text, compile_path(token.text))
            except ValueError as error:
                raise _syntax_error(self.text, token.position, f"invalid path {token.text!r} ({error})") from error
        raise self._unexpected(token, "an argument")

    def _peek(self) -> _Token:
        return self.tokens[self.index]

    def _next(self) -> _Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def _expect(self, kind: str, description: str) -> _Token:
        token = self._next()
        if token.kind != kind:
            raise self._unexpected(token, description)
        return token

    def _unexpected(self, token: _Token, expected: str) -> IntrinsicSyntaxError:
        found = "the end of the expression" if token.kind == "end" else repr(token.text)
        return _syntax_error(self.text, token.position, f"expected {expected}, found {found}")
