"""Where two JSON values differ, by JSON path: what assertion messages show instead of both values.

An output of a few kilobytes that differs in one field is unreadable as two one-line dumps; a list of
changed, missing and extra paths points at the field. Values compare as JSON does: `true` is not `1`,
and `1` equals `1.0` (JSON has one number type).
"""

from __future__ import annotations

import json
import re
from typing import Any

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VALUE_WIDTH = 200  # characters of one value shown in a difference line
MAX_LINES = 50  # differences listed before "... and N more"


def json_differences(actual: Any, expected: Any, path: str = "$") -> list[str]:
    """One line per difference between `actual` and `expected`, each naming its JSON path:
    `$.a.b: expected X, got Y`, `$.c: missing (expected X)`, `$.d: not expected (got Y)`."""
    if isinstance(actual, dict) and isinstance(expected, dict):
        lines: list[str] = []
        for key in expected:
            child = _child_path(path, key)
            if key not in actual:
                lines.append(f"{child}: missing (expected {_show(expected[key])})")
            else:
                lines += json_differences(actual[key], expected[key], child)
        lines += [f"{_child_path(path, key)}: not expected (got {_show(actual[key])})"
                  for key in actual if key not in expected]
        return lines
    if isinstance(actual, list) and isinstance(expected, list):
        lines = []
        for index, (got, wanted) in enumerate(zip(actual, expected)):
            lines += json_differences(got, wanted, f"{path}[{index}]")
        lines += [f"{path}[{index}]: missing (expected {_show(expected[index])})"
                  for index in range(len(actual), len(expected))]
        lines += [f"{path}[{index}]: not expected (got {_show(actual[index])})"
                  for index in range(len(expected), len(actual))]
        return lines
    if json_equal(actual, expected):
        return []
    return [f"{path}: expected {_show(expected)}, got {_show(actual)}"]


def json_equal(actual: Any, expected: Any) -> bool:
    """Equality as JSON values: booleans are not numbers, and containers compare member by member."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(actual, dict) and isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(json_equal(actual[key], expected[key]) for key in actual)
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(map(json_equal, actual, expected))
    if isinstance(actual, (dict, list)) or isinstance(expected, (dict, list)):
        return False
    return bool(actual == expected)


def describe_differences(actual: Any, expected: Any) -> str:
    """The differences as indented lines, at most MAX_LINES of them."""
    lines = json_differences(actual, expected)
    shown = [f"  {line}" for line in lines[:MAX_LINES]]
    if len(lines) > MAX_LINES:
        shown.append(f"  ... and {len(lines) - MAX_LINES} more difference(s)")
    return "\n".join(shown)


def _child_path(path: str, key: str) -> str:
    return f"{path}.{key}" if isinstance(key, str) and _IDENTIFIER.fullmatch(key) else f"{path}[{json.dumps(key)}]"


def _show(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= _VALUE_WIDTH else text[:_VALUE_WIDTH - 3] + "..."
