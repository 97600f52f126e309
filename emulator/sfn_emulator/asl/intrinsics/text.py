"""The string functions: States.Format (with AWS's rendering of each value) and States.StringSplit."""

from __future__ import annotations

import re

from sfn_emulator.asl.intrinsics.arguments import Arguments, string_argument
from sfn_emulator.asl.intrinsics.errors import InvalidArguments
from sfn_emulator.asl.intrinsics.tree import FormatTemplate
from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.model import JSON


def _format_value(value: JSON) -> str:
    """A value as States.Format writes it: objects as {k=v, ...}, arrays as [a, b], strings bare."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_format_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}={_format_value(item)}" for key, item in value.items()) + "}"
    return compact_json(value)


def split_format_template(template: str, *, escapes: bool) -> tuple[str, ...] | None:
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


def format_string(args: Arguments) -> JSON:
    template, values = args[0], args[1:]
    if isinstance(template, FormatTemplate):
        pieces = template.pieces
    else:
        pieces = split_format_template(string_argument(template), escapes=False)
    if pieces is None or len(pieces) != len(values) + 1:
        raise InvalidArguments
    out = [pieces[0]]
    for value, piece in zip(values, pieces[1:]):
        out.append(_format_value(value))
        out.append(piece)
    return "".join(out)


def string_split(args: Arguments) -> JSON:
    """Split at any of the delimiter characters, dropping empty parts (as AWS does)."""
    text, delimiters = string_argument(args[0]), string_argument(args[1])
    if not delimiters:
        return [text] if text else []
    pattern = "[" + "".join(re.escape(char) for char in delimiters) + "]"
    return [part for part in re.split(pattern, text) if part]
