"""Comparing an answer with a fixture's expectation: JSON equality (types too) where `<any>` in an
expected string stands for any text, and `includes`, which lets objects hold more members."""

from __future__ import annotations

import re
from typing import Any


def matches(expected: Any, actual: Any) -> bool:
    """JSON equality where `<any>` in an expected string matches any text."""
    if isinstance(expected, str) and "<any>" in expected:
        pattern = ".*?".join(re.escape(part) for part in expected.split("<any>"))
        return isinstance(actual, str) and re.fullmatch(pattern, actual, re.DOTALL) is not None
    if isinstance(expected, dict):
        return isinstance(actual, dict) and expected.keys() == actual.keys() and all(
            matches(value, actual[key]) for key, value in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(
            matches(e, a) for e, a in zip(expected, actual))
    return type(expected) is type(actual) and expected == actual


def includes(expected: Any, actual: Any) -> bool:
    """Like `matches`, but objects may hold more members than expected."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(key in actual and includes(value, actual[key])
                                                for key, value in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(
            includes(e, a) for e, a in zip(expected, actual))
    return matches(expected, actual)
