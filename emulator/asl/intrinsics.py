"""Intrinsic functions of the JSONPath query language (`States.Format(...)` and the other 17).

A call is parsed once by `compile_intrinsic` (a tokenizer and a recursive-descent parser) into a
tree of small nodes, then evaluated many times by `Intrinsic.evaluate(value, scope)`.

What AWS does, as recorded (see tests/fixtures/intrinsics/ for the sources):
- A malformed call or an unknown function name is rejected with the definition, so it is an
  `IntrinsicSyntaxError` here (the validator turns it into an InvalidDefinition diagnostic).
- Everything else fails while the state runs, with `States.Runtime` (not States.IntrinsicFailure)
  and a cause that names the whole expression as written:
  "The function '<expression>' had the following error: <reason>", where the reason is
  "Invalid arguments in States.<Name>" for a wrong argument count, type or value, and
  "The JsonPath argument for the field '<path>' could not be found in the input '<input>'" for a
  path argument that selects nothing. The engine prefixes "An error occurred while executing the
  state ..." as it does for every States.Runtime cause.
- Fractional numbers are truncated toward zero, except by States.MathAdd, which rounds half up.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
import random
import re
from dataclasses import dataclass
from typing import Callable, Mapping

from sfn_emulator.asl.errors import RUNTIME, StatesError
from sfn_emulator.asl.model import JSON, Constant, Expression, Scope
from sfn_emulator.asl.paths import JsonPath, PathNotFound, compile_path
from sfn_emulator.randomness import Randomness

__all__ = ["FUNCTION_NAMES", "Intrinsic", "IntrinsicSyntaxError", "compile_intrinsic"]


class IntrinsicSyntaxError(ValueError):
    """An intrinsic call that cannot be parsed, or that names no known function."""


def compile_intrinsic(text: str) -> Intrinsic:
    """Parse `text`, e.g. "States.Format('Hello {}', $.name)", into an evaluable `Intrinsic`."""
    return Intrinsic(text, _Parser(text).parse())


@dataclass(frozen=True, slots=True)
class Intrinsic:
    """A compiled intrinsic call; `text` is the expression exactly as written in the definition."""

    text: str
    call: _Call

    def evaluate(self, value: JSON, scope: Scope) -> JSON:
        """Evaluate against the effective input `value`; raises `StatesError` on failure."""
        try:
            return self.call.evaluate(value, scope)
        except _CallFailed as failure:
            raise StatesError(
                RUNTIME, f"The function '{self.text}' had the following error: {failure.reason}"
            ) from None


# ---------------------------------------------------------------------------------------------
# Evaluation tree


class _CallFailed(Exception):
    """Raised inside the tree; `Intrinsic.evaluate` turns it into AWS's States.Runtime cause."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _InvalidArguments(Exception):
    """Raised by a function implementation; the calling node names the function."""


@dataclass(frozen=True, slots=True)
class _FormatTemplate:
    """The literal first argument of States.Format, split at its `{}` placeholders.

    Only a literal can escape braces (`\\{`), so it is split at parse time; `pieces` is None when
    a brace is unmatched, which AWS reports when the state runs, not with the definition."""

    pieces: tuple[str, ...] | None

    def evaluate(self, value: JSON, scope: Scope) -> JSON:
        return self


@dataclass(frozen=True, slots=True)
class _PathArgument:
    text: str
    path: JsonPath

    def evaluate(self, value: JSON, scope: Scope) -> JSON:
        try:
            return self.path.evaluate(value, scope)
        except PathNotFound:
            # AWS names a Context Object path by its part after the first `$`, and shows the
            # state input (not the Context Object) as "the input".
            reported = self.text[1:] if self.text.startswith("$$") else self.text
            raise _CallFailed(
                f"The JsonPath argument for the field '{reported}' could not be found in the "
                f"input '{_compact_json(value)}'"
            ) from None


@dataclass(frozen=True, slots=True)
class _Call:
    function: _Function
    arguments: tuple[Expression, ...]

    def evaluate(self, value: JSON, scope: Scope) -> JSON:
        args = [argument.evaluate(value, scope) for argument in self.arguments]
        function = self.function
        too_many = function.max_args is not None and len(args) > function.max_args
        try:
            if len(args) < function.min_args or too_many:
                raise _InvalidArguments
            return function.apply(args, scope.randomness) if function.draws else function.apply(args)
        except _InvalidArguments:
            raise _CallFailed(f"Invalid arguments in {function.name}") from None


# ---------------------------------------------------------------------------------------------
# Tokenizer

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_KEYWORDS: Mapping[str, JSON] = {"true": True, "false": False, "null": None}
# The characters AWS reserves inside a string literal; each must be written with a backslash.
_ESCAPABLE = frozenset("'{}\\")


@dataclass(frozen=True, slots=True)
class _Token:
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


# ---------------------------------------------------------------------------------------------
# Parser: call := NAME "(" [argument ("," argument)*] ")"
#         argument := string | number | true | false | null | path | call


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.index = 0

    def parse(self) -> _Call:
        call = self._call()
        self._expect("end", "end of the expression")
        return call

    def _call(self) -> _Call:
        token = self._expect("name", "an intrinsic function name")
        function = _FUNCTIONS.get(token.text)
        if function is None:
            raise _syntax_error(self.text, token.position, f"unknown intrinsic function {token.text!r}")
        self._expect("(", "'(' after the function name")
        arguments: list[Expression] = []
        if self._peek().kind == ")":
            self.index += 1
            return _Call(function, ())
        while True:
            arguments.append(self._argument(function, first=not arguments))
            separator = self._next()
            if separator.kind == ")":
                return _Call(function, tuple(arguments))
            if separator.kind != ",":
                raise self._unexpected(separator, "',' or ')'")

    def _argument(self, function: _Function, *, first: bool) -> Expression:
        token = self._peek()
        if token.kind == "name" and self.tokens[self.index + 1].kind == "(":
            return self._call()
        self.index += 1
        if token.kind == "string" and first and function.name == "States.Format":
            return _FormatTemplate(_split_format_template(token.text[1:-1], escapes=True))
        if token.kind in ("string", "number", "keyword"):
            return Constant(token.value)
        if token.kind == "path":
            try:
                return _PathArgument(token.text, compile_path(token.text))
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


# ---------------------------------------------------------------------------------------------
# The functions

Arguments = list[JSON]


@dataclass(frozen=True, slots=True)
class _Function:
    name: str
    min_args: int
    max_args: int | None  # None: any number
    apply: Callable[..., JSON]  # (arguments), or (arguments, randomness) when `draws`
    draws: bool = False  # takes the scope's Randomness too


def _is_number(value: JSON) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _truncated(value: JSON) -> int:
    """A number argument as an integer, truncated toward zero as AWS does."""
    if not _is_number(value) or not math.isfinite(value):
        raise _InvalidArguments
    return int(value)


def _string(value: JSON) -> str:
    if not isinstance(value, str):
        raise _InvalidArguments
    return value


def _array(value: JSON) -> list[JSON]:
    if not isinstance(value, list):
        raise _InvalidArguments
    return value


# One encoder for every call: `json.dumps` with options builds a new one each time.
_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def _compact_json(value: JSON) -> str:
    return _COMPACT_JSON.encode(value)


def _text_form(value: JSON) -> str:
    """A value as AWS compares and hashes it: a string as itself, anything else as JSON text."""
    return value if isinstance(value, str) else _compact_json(value)


def _format_value(value: JSON) -> str:
    """A value as States.Format writes it: objects as {k=v, ...}, arrays as [a, b], strings bare."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_format_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}={_format_value(item)}" for key, item in value.items()) + "}"
    return _compact_json(value)


def _split_format_template(template: str, *, escapes: bool) -> tuple[str, ...] | None:
    """The text around each `{}`; None when a brace is unmatched. With `escapes`, `\\x` is x."""
    pieces: list[str] = []
    current: list[str] = []
    position = 0
    while position < len(template):
        char = template[position]
        if escapes and char == "\\":
            current.append(template[position + 1])
            position += 2
            continue
        if char == "{" and template.startswith("{}", position):
            pieces.append("".join(current))
            current = []
            position += 2
            continue
        if char in "{}":
            return None
        current.append(char)
        position += 1
    pieces.append("".join(current))
    return tuple(pieces)


def _format(args: Arguments) -> JSON:
    template, values = args[0], args[1:]
    if isinstance(template, _FormatTemplate):
        pieces = template.pieces
    else:
        pieces = _split_format_template(_string(template), escapes=False)
    if pieces is None or len(pieces) != len(values) + 1:
        raise _InvalidArguments
    out = [pieces[0]]
    for value, piece in zip(values, pieces[1:]):
        out.append(_format_value(value))
        out.append(piece)
    return "".join(out)


def _reject_constant(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")


def _string_to_json(args: Arguments) -> JSON:
    text = _string(args[0])
    if not text.strip():
        return None  # as recorded on AWS for "" and " "
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except ValueError:
        raise _InvalidArguments from None


def _json_to_string(args: Arguments) -> JSON:
    return _compact_json(args[0])


def _array_of(args: Arguments) -> JSON:
    return list(args)


def _array_partition(args: Arguments) -> JSON:
    array, size = _array(args[0]), _truncated(args[1])
    if size <= 0:
        raise _InvalidArguments
    return [array[start : start + size] for start in range(0, len(array), size)]


def _array_contains(args: Arguments) -> JSON:
    array, wanted = _array(args[0]), _text_form(args[1])
    return any(_text_form(item) == wanted for item in array)


_MAX_RANGE_ITEMS = 1000


def _array_range(args: Arguments) -> JSON:
    start, end, step = (_truncated(arg) for arg in args)
    if step == 0:
        raise _InvalidArguments
    items = range(start, end + (1 if step > 0 else -1), step)
    if len(items) > _MAX_RANGE_ITEMS:
        raise _InvalidArguments
    return list(items)


def _array_get_item(args: Arguments) -> JSON:
    array, index = _array(args[0]), _truncated(args[1])
    if not array:
        return None  # AWS answers null for any index into an empty array
    if not 0 <= index < len(array):
        raise _InvalidArguments
    return array[index]


def _array_length(args: Arguments) -> JSON:
    return len(_array(args[0]))


def _json_equal(left: JSON, right: JSON) -> bool:
    """Structural equality of JSON values: key order ignored, booleans never equal to numbers."""
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_json_equal, left, right))
    if type(left) in (dict, list) or type(right) in (dict, list):
        return False
    return left == right


def _array_unique(args: Arguments) -> JSON:
    unique: list[JSON] = []
    for item in _array(args[0]):
        if not any(_json_equal(item, seen) for seen in unique):
            unique.append(item)
    return unique


_MAX_ENCODING_INPUT = 10_000
_BASE64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _base64_encode(args: Arguments) -> JSON:
    text = _string(args[0])
    if len(text) > _MAX_ENCODING_INPUT:
        raise _InvalidArguments
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _base64_decode(args: Arguments) -> JSON:
    """Lenient like a MIME decoder (as AWS is): characters outside the alphabet are skipped and
    the data ends at the first padding character."""
    text = _string(args[0])
    if len(text) > _MAX_ENCODING_INPUT:
        raise _InvalidArguments
    data = "".join(c for c in text.partition("=")[0] if c in _BASE64_ALPHABET)
    if len(data) % 4 == 1:
        raise _InvalidArguments
    try:
        decoded = base64.b64decode(data + "=" * (-len(data) % 4))
    except binascii.Error:
        raise _InvalidArguments from None
    return decoded.decode("utf-8", errors="replace")


_HASH_ALGORITHMS: Mapping[str, str] = {
    "MD5": "md5",
    "SHA-1": "sha1",
    "SHA-256": "sha256",
    "SHA-384": "sha384",
    "SHA-512": "sha512",
}


def _hash(args: Arguments) -> JSON:
    data, algorithm = _text_form(args[0]), args[1]
    if not isinstance(algorithm, str) or algorithm not in _HASH_ALGORITHMS:
        raise _InvalidArguments
    if len(data) > _MAX_ENCODING_INPUT:
        raise _InvalidArguments
    return hashlib.new(_HASH_ALGORITHMS[algorithm], data.encode("utf-8")).hexdigest()


def _json_merge(args: Arguments) -> JSON:
    """Shallow merge, the second object's keys winning; AWS refuses only a deep flag of true."""
    first, second, deep = args
    if not isinstance(first, dict) or not isinstance(second, dict) or deep is True:
        raise _InvalidArguments
    return {**first, **second}


def _math_random(args: Arguments, randomness: Randomness) -> JSON:
    """An integer in [start, end); the optional seed makes it repeatable, else the execution's source draws it."""
    start, end = _truncated(args[0]), _truncated(args[1])
    if start >= end:
        raise _InvalidArguments
    if len(args) == 3:
        return random.Random(_truncated(args[2])).randrange(start, end)
    return randomness.randrange(start, end)


_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def _int32_rounded(value: JSON) -> int:
    """Round half up (Java's Math.round), then require a 32-bit integer."""
    if not _is_number(value) or not math.isfinite(value):
        raise _InvalidArguments
    floor = math.floor(value)
    rounded = floor + 1 if value - floor >= 0.5 else floor
    if not _INT32_MIN <= rounded <= _INT32_MAX:
        raise _InvalidArguments
    return rounded


def _math_add(args: Arguments) -> JSON:
    total = _int32_rounded(args[0]) + _int32_rounded(args[1])
    if not _INT32_MIN <= total <= _INT32_MAX:
        raise _InvalidArguments
    return total


def _string_split(args: Arguments) -> JSON:
    """Split at any of the delimiter characters, dropping empty parts (as AWS does)."""
    text, delimiters = _string(args[0]), _string(args[1])
    if not delimiters:
        return [text] if text else []
    pattern = "[" + "".join(re.escape(char) for char in delimiters) + "]"
    return [part for part in re.split(pattern, text) if part]


def _uuid(args: Arguments, randomness: Randomness) -> JSON:
    """A random (version 4) UUID; AWS ignores any arguments."""
    return randomness.uuid()


_FUNCTIONS: Mapping[str, _Function] = {
    function.name: function
    for function in (
        _Function("States.Format", 1, None, _format),
        _Function("States.StringToJson", 1, 1, _string_to_json),
        _Function("States.JsonToString", 1, 1, _json_to_string),
        _Function("States.Array", 0, None, _array_of),
        _Function("States.ArrayPartition", 2, 2, _array_partition),
        _Function("States.ArrayContains", 2, 2, _array_contains),
        _Function("States.ArrayRange", 3, 3, _array_range),
        _Function("States.ArrayGetItem", 2, 2, _array_get_item),
        _Function("States.ArrayLength", 1, 1, _array_length),
        _Function("States.ArrayUnique", 1, 1, _array_unique),
        _Function("States.Base64Encode", 1, 1, _base64_encode),
        _Function("States.Base64Decode", 1, 1, _base64_decode),
        _Function("States.Hash", 2, 2, _hash),
        _Function("States.JsonMerge", 3, 3, _json_merge),
        _Function("States.MathRandom", 2, 3, _math_random, draws=True),
        _Function("States.MathAdd", 2, 2, _math_add),
        _Function("States.StringSplit", 2, 2, _string_split),
        _Function("States.UUID", 0, None, _uuid, draws=True),
    )
}

FUNCTION_NAMES: frozenset[str] = frozenset(_FUNCTIONS)
