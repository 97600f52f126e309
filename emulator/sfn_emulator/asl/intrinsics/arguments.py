"""What every function of the library shares: its signature record and its argument checks."""

from __future__ import annotations

import math
from typing import Callable

from msgspec import Struct

from sfn_emulator.asl.intrinsics.errors import InvalidArguments
from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.model import JSON

Arguments = list[JSON]


class Function(Struct, frozen=True):
    name: str
    min_args: int
    max_args: int | None  # None: any number
    apply: Callable[..., JSON]  # (arguments), or (arguments, randomness) when `draws`
    draws: bool = False  # takes the scope's Randomness too


def is_number(value: JSON) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def truncated(value: JSON) -> int:
    """A number argument as an integer, truncated toward zero as AWS does."""
    if not is_number(value) or not math.isfinite(value):
        raise InvalidArguments
    return int(value)


def string_argument(value: JSON) -> str:
    if not isinstance(value, str):
        raise InvalidArguments
    return value


def array_argument(value: JSON) -> list[JSON]:
    if not isinstance(value, list):
        raise InvalidArguments
    return value


def text_form(value: JSON) -> str:
    """A value as AWS compares and hashes it: a string as itself, anything else as JSON text."""
    return value if isinstance(value, str) else compact_json(value)
