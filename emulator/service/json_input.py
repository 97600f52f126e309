"""Execution input must be JSON text; a refusal names the problem in the words AWS uses.

AWS parses input with Jackson and quotes Jackson's message inside its own, e.g. (recorded on AWS):
  Invalid State Machine Execution Input: 'Unrecognized token 'not': was expecting (JSON String,
  Number, Array, Object or token 'null', 'true' or 'false')'
We parse with Python's `json` and translate its common complaints into Jackson's wording; the rare
ones keep Python's wording. A document nested deeper than Python's parser goes (about 1,000 levels,
as deep as Jackson's default limit) is refused with Jackson's words for its limit.
"""

from __future__ import annotations

import json

from sfn_emulator.asl.json_text import innermost_open_bracket
from sfn_emulator.service.errors import InvalidExecutionInput

_EXPECTING_TOKEN = "was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"


def _character(char: str) -> str:
    """Jackson's rendering of an unexpected character."""
    code = ord(char)
    return f"(CTRL-CHAR, code {code})" if code < 32 else f"'{char}' (code {code})"


def _container_at(text: str, position: int) -> str:
    """'Object' or 'Array': the innermost container open at `position`."""
    return "Array" if innermost_open_bracket(text, position) == "[" else "Object"


def _jackson_message(text: str, error: json.JSONDecodeError) -> str:
    position = error.pos
    char = text[position] if position < len(text) else ""
    if error.msg == "Expecting value" and char and (char.isalnum() or char in "_$"):
        end = position
        while end < len(text) and (text[end].isalnum() or text[end] in "_$"):
            end += 1
        return f"Unrecognized token '{text[position:end]}': {_EXPECTING_TOKEN}"
    if char:
        expectations = {
            "Expecting value": "expected a value",
            "Expecting property name enclosed in double quotes": "was expecting double-quote to start field name",
            "Expecting ':' delimiter": "was expecting a colon to separate field name and value",
            "Expecting ',' delimiter": f"was expecting comma to separate {_container_at(text, position)} entries",
        }
        if error.msg in expectations:
            return f"Unexpected character ({_character(char)}): {expectations[error.msg]}"
    return str(error)


# Jackson's refusal of a document nested deeper than its default limit (StreamReadConstraints).
_TOO_DEEP = ("Document nesting depth (1001) exceeds the maximum allowed (1000, from "
             "`StreamReadConstraints.getMaxNestingDepth()`)")


def _reject_non_numeric(token: str) -> None:
    raise ValueError(f"Non-standard token '{token}': enable JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS to allow")


def json_problem(text: str) -> str | None:
    """What keeps `text` from being JSON text, in Jackson's words; None when it is JSON."""
    try:
        json.loads(text, parse_constant=_reject_non_numeric)
    except json.JSONDecodeError as error:
        return _jackson_message(text, error)
    except ValueError as error:  # NaN, Infinity: JSON has no such numbers
        return str(error)
    except RecursionError:  # Python's parser stops near where Jackson's default limit does
        return _TOO_DEEP
    return None


def check_json_input(text: str) -> None:
    """Raise `InvalidExecutionInput` unless `text` is JSON text (any JSON value, scalars included)."""
    problem = "Invalid execution input." if not text.strip() else json_problem(text)
    if problem is not None:
        raise InvalidExecutionInput(f"Invalid State Machine Execution Input: '{problem}'")
