"""JSON text read as AWS reads it: Python's parser, with Jackson's words when the text is not JSON.

AWS parses definitions, execution inputs and task outputs with Jackson and quotes its complaint,
e.g. "Unrecognized token 'not': was expecting (JSON String, Number, Array, Object or token 'null',
'true' or 'false')". `read_json` is the one place that turns Python's complaints into Jackson's
(`JsonTextError.message`) and says how far Jackson had read (`offset`), which definition
diagnostics turn into Jackson's `line: L, column: C`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sfn_emulator.asl.json_text import characters_outside_strings, innermost_open_bracket, position_outside_strings

# Jackson's refusal of a document nested deeper than its default limit (StreamReadConstraints);
# Python's parser stops near the same depth.
MAX_NESTING_DEPTH = 1000  # Jackson's default (StreamReadConstraints), counted here, not left to Python's stack
TOO_DEEP = (
    "Document nesting depth (1001) exceeds the maximum allowed (1000, from "
    "`StreamReadConstraints.getMaxNestingDepth()`)"
)
_VALUE_EXPECTED = "was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"
_CONTAINER_NAMES = {"{": "OBJECT", "[": "ARRAY"}  # Jackson's names in "expected close marker for ..."
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


class JsonTextError(ValueError):
    """Text that is not JSON: Jackson's `message`, and the `offset` just after what Jackson read
    (None when the document is refused as a whole, for its depth)."""

    def __init__(self, message: str, offset: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def read_json(text: str, *, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """The JSON value of `text`; `JsonTextError` in Jackson's words when it is not JSON text or is nested
    deeper than Jackson's limit. The depth is counted, not found by Python's recursion limit, which a
    library may raise for the whole process (jsonata-python sets it to 10,000)."""
    if _nested_too_deeply(text):
        raise JsonTextError(TOO_DEEP, None)
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook, parse_constant=_reject_constant)
    except _NonStandardNumber as problem:
        end = position_outside_strings(text, problem.token) + len(problem.token)
        message = f"Non-standard token '{problem.token}': enable JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS to allow"
        raise JsonTextError(message, end) from None
    except json.JSONDecodeError as problem:
        raise JsonTextError(*_jackson_wording(text, problem)) from None
    except RecursionError:
        raise JsonTextError(TOO_DEEP, None) from None


def _nested_too_deeply(text: str) -> bool:
    """Do brackets outside strings open deeper than MAX_NESTING_DEPTH? (Only counted when the text
    holds that many opening brackets at all.)"""
    if text.count("[") + text.count("{") <= MAX_NESTING_DEPTH:
        return False
    depth = 0
    for _, character in characters_outside_strings(text):
        if character in "[{":
            depth += 1
            if depth > MAX_NESTING_DEPTH:
                return True
        elif character in "]}":
            depth -= 1
    return False


class _NonStandardNumber(ValueError):
    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.token = token


def _reject_constant(token: str) -> None:
    raise _NonStandardNumber(token)


def _jackson_wording(text: str, problem: json.JSONDecodeError) -> tuple[str, int]:
    """Jackson's description of a syntax error, and the offset just after what it read."""
    position = problem.pos
    if problem.msg.startswith("Unterminated string"):
        return _unterminated_string(text, position)
    if position >= len(text):
        container = _CONTAINER_NAMES.get(innermost_open_bracket(text, len(text)))
        if container is None:
            return "No content to map due to end-of-input", len(text)
        return f"Unexpected end-of-input: expected close marker for {container}", len(text)
    character = text[position]
    if problem.msg.startswith("Invalid \\escape"):
        return f"Unrecognized character escape {describe_character(text[position + 1])}", position + 2
    if problem.msg.startswith("Invalid \\uXXXX escape"):
        return _bad_unicode_escape(text, position + 1)
    if problem.msg.startswith("Invalid control character"):
        where = "name" if _is_field_name(text, _string_start(text, position)) else "string value"
        return (
            f"Illegal unquoted character ({describe_character(character)}): "
            f"has to be escaped using backslash to be included in {where}",
            position + 1,
        )
    if character < " ":  # Python skips only regular white space; Jackson names the rest
        return (
            f"Illegal character ({describe_character(character)}): "
            "only regular white space (\\r, \\n, \\t) is allowed between tokens",
            position + 1,
        )
    if (character.isalpha() or character in "_$") and problem.msg in ("Expecting value", "Extra data"):
        end = position
        while end < len(text) and (text[end].isalnum() or text[end] in "_$"):
            end += 1
        return f"Unrecognized token '{text[position:end]}': {_VALUE_EXPECTED}", end
    if problem.msg.startswith("Expecting property name"):
        expectation = "was expecting double-quote to start field name"
    elif problem.msg == "Expecting ':' delimiter":
        expectation = "was expecting a colon to separate field name and value"
    elif problem.msg == "Expecting ',' delimiter":
        entries = "Object" if innermost_open_bracket(text, position) == "{" else "Array"
        expectation = f"was expecting comma to separate {entries} entries"
    else:
        expectation = "expected a value"
    return f"Unexpected character ({describe_character(character)}): {expectation}", position + 1


def _unterminated_string(text: str, start: int) -> tuple[str, int]:
    """The input ended inside the string opened at `start`: in an escape, a field name or a value."""
    index = start + 1
    while index < len(text):
        if text[index] == "\\":
            if index + 1 == len(text):
                return "Unexpected end-of-input in character escape sequence", len(text)
            if text[index + 1] == "u":
                return _bad_unicode_escape(text, index + 2)
            index += 2
        else:
            index += 1
    if _is_field_name(text, start):
        return "Unexpected end-of-input in field name", len(text)
    return "Unexpected end-of-input: was expecting closing quote for a string value", len(text)


def _bad_unicode_escape(text: str, digits: int) -> tuple[str, int]:
    """A `\\u` escape whose four hex digits start at `digits` and are cut short or wrong."""
    for index in range(digits, digits + 4):
        if index >= len(text):
            return "Unexpected end-of-input in character escape sequence", len(text)
        if text[index] not in _HEX_DIGITS:
            character = describe_character(text[index])
            return f"Unexpected character ({character}): expected a hex-digit for character escape sequence", index + 1
    raise AssertionError("Python refused a well-formed \\u escape")  # pragma: no cover


def _string_start(text: str, position: int) -> int:
    """The offset of the opening quote of the string literal that holds `position`: just after the
    last character outside strings (the text before an error is valid JSON, so no string closes there)."""
    last = -1
    for index, _ in characters_outside_strings(text[:position]):
        last = index
    return last + 1


def _is_field_name(text: str, quote: int) -> bool:
    """Whether the string literal opened at `quote` stands where an object expects a field name."""
    before = text[:quote].rstrip(" \t\r\n")
    return before.endswith("{") or (before.endswith(",") and innermost_open_bracket(text, quote) == "{")


def describe_character(character: str) -> str:
    """Jackson's rendering of a character in its complaints (`_getCharDesc`)."""
    code = ord(character)
    if code < 32 or 127 <= code <= 159:  # Java's ISO control characters
        return f"(CTRL-CHAR, code {code})"
    if code > 255:
        return f"'{character}' (code {code} / 0x{code:x})"
    return f"'{character}' (code {code})"
