"""Walking a JSON value the way every workflow dialect's templates are compiled and filled: objects
and arrays kept as they are, each leaf (a string, number, boolean, null or compiled expression)
replaced."""

from __future__ import annotations

from typing import Any, Callable

JSON = Any


def map_leaves(value: JSON, leaf: Callable[[JSON], JSON]) -> JSON:
    """`value` with every leaf replaced by `leaf(it)`, objects and arrays rebuilt around them."""
    if isinstance(value, dict):
        return {key: map_leaves(item, leaf) for key, item in value.items()}
    if isinstance(value, list):
        return [map_leaves(item, leaf) for item in value]
    return leaf(value)
