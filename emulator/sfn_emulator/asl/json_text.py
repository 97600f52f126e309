"""JSON text as AWS writes and reads it: `compact_json`, the one serialisation of payloads and of
values quoted in causes; and scanning raw JSON text the way error messages need it: where a token
stands outside string literals, and which bracket is still open at an offset. Both definition
validation and execution input quote Jackson's complaints, which name these."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

# One encoder for every call: `json.dumps` with options builds a new one each time.
_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def compact_json(value: Any) -> str:
    """JSON text as AWS writes payloads and quotes values in causes: compact, non-ASCII kept."""
    return _COMPACT_JSON.encode(value)


def characters_outside_strings(text: str) -> Iterator[tuple[int, str]]:
    """(offset, character) of every character of `text` outside string literals, quotes excluded."""
    in_string = escaped = False
    for index, character in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == '"':
                in_string = False
        elif character == '"':
            in_string = True
        else:
            yield index, character


def innermost_open_bracket(text: str, end: int) -> str | None:
    """`{` or `[`: the innermost bracket still open at offset `end`, or None."""
    stack: list[str] = []
    for _, character in characters_outside_strings(text[:end]):
        if character in "{[":
            stack.append(character)
        elif character in "}]" and stack:
            stack.pop()
    return stack[-1] if stack else None


def position_outside_strings(text: str, token: str) -> int:
    """The offset of the first `token` outside string literals (0 when there is none)."""
    return next((index for index, _ in characters_outside_strings(text) if text.startswith(token, index)), 0)
