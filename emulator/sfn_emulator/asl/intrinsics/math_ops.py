"""The math and identifier functions: States.MathRandom, States.MathAdd and States.UUID (the two
that draw take the execution's seedable randomness)."""

from __future__ import annotations

import math
import random

from sfn_emulator.asl.intrinsics.arguments import Arguments, is_number, truncated
from sfn_emulator.asl.intrinsics.errors import InvalidArguments
from sfn_emulator.asl.model import JSON
from sfn_emulator.process.randomness import Randomness


def math_random(args: Arguments, randomness: Randomness) -> JSON:
    """An integer in [start, end); the optional seed makes it repeatable, else the execution's source draws it."""
    start, end = truncated(args[0]), truncated(args[1])
    if start >= end:
        raise InvalidArguments
    if len(args) == 3:
        return random.Random(truncated(args[2])).randrange(start, end)
    return randomness.randrange(start, end)


_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def _int32_rounded(value: JSON) -> int:
    """Round half up (Java's Math.round), then require a 32-bit integer."""
    if not is_number(value) or not math.isfinite(value):
        raise InvalidArguments
    floor = math.floor(value)
    rounded = floor + 1 if value - floor >= 0.5 else floor
    if not _INT32_MIN <= rounded <= _INT32_MAX:
        raise InvalidArguments
    return rounded


def math_add(args: Arguments) -> JSON:
    total = _int32_rounded(args[0]) + _int32_rounded(args[1])
    if not _INT32_MIN <= total <= _INT32_MAX:
        raise InvalidArguments
    return total


def random_uuid(args: Arguments, randomness: Randomness) -> JSON:
    """A random (version 4) UUID; AWS ignores any arguments."""
    return randomness.uuid()
