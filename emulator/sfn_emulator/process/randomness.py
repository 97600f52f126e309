"""Everything random the emulator draws for an execution (ids, task tokens, `States.UUID`,
`States.MathRandom`, JSONata's `$uuid()` and `$random()`), from one seedable generator.

The interpreter and the control plane never call `uuid4` or `random` themselves: the runtime hands
them a seed, so a run started with `--seed` (`SFN_EMULATOR_SEED`) repeats itself id for id, and an
unseeded one draws a fresh seed per process. Below every layer, so the language can use it too.
"""

from __future__ import annotations

import random

_SEED_BITS = 64


def process_seed(seed: int | None) -> int:
    """`seed` when one was chosen, else a fresh one from the operating system's entropy."""
    return seed if seed is not None else random.SystemRandom().getrandbits(_SEED_BITS)


class Randomness:
    """A seeded source of ids and numbers: the same seed gives the same draws in the same order."""

    __slots__ = ("_generator",)

    def __init__(self, seed: int | str) -> None:
        self._generator = random.Random(seed)

    def uuid(self) -> str:
        """A version 4 UUID, as AWS generates its ids and `States.UUID` gives them."""
        import uuid  # on first use: uuid's module loads `platform`

        return str(uuid.UUID(int=self._generator.getrandbits(128), version=4))

    def hex_token(self, length: int) -> str:
        """`length` lowercase hex digits."""
        return f"{self._generator.getrandbits(length * 4):0{length}x}"

    def random(self) -> float:
        """A float in [0, 1)."""
        return self._generator.random()

    def randrange(self, start: int, stop: int) -> int:
        """An integer in [start, stop)."""
        return self._generator.randrange(start, stop)
