"""The functions Step Functions adds to JSONata (`$partition`, `$range`, `$hash`, `$parse`, `$uuid`,
`$random`), the one it leaves out (`$eval`), and `$now()`/`$millis()` on the execution's clock.

As AWS runs them (AWS's "Transforming data with JSONata" page; values measured on AWS and published in
floci-io/floci#2662 and #2676; recorded executions in the conformance cases):

- `$range(start, end, step)` is a JSONata *sequence* from `start` to `end`, `end` included when a step
  lands on it: a one-item range is the item (`$range(1, 9, 9)` is `1`), an empty one is nothing
  (undefined). Fractional arguments are truncated toward zero (`$range(-1.7, 2, 1)` is `[-1,0,1,2]`),
  and there is no 1000-item cap (that belongs to `States.ArrayRange`); past AWS's memory bound (between
  200,000 and 900,000 items) it fails with AWS's memory-limit text. A step of 0 selects nothing.
- `$partition(array, size)` is an *array* of chunks (recorded: `$partition([0], 1)` is `[[0]]`, not
  `[0]`); a size below 1 (after truncation toward zero) fails the state.
- `$hash(value, algorithm)`: MD5, SHA-1, SHA-256, SHA-384 or SHA-512, hex digest of the text.
- `$random(seed)` is Java's `java.util.Random(seed).nextDouble()`, bit for bit (`$random(42)` is
  0.7275636800328681 on AWS); `$random()` draws from the execution's seedable source.
- `$parse(text)` reads JSON text (`"-0"` is 0, `"null"` is JSON's null).

AWS's own words for these functions' argument errors are not published: the texts here are the emulator's.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Callable, Sequence

from sfn_emulator.asl.model import ExpressionScope
from sfn_emulator.process.randomness import Randomness

# hashlib's names of the algorithms $hash knows (hashlib, with OpenSSL, loads on the first hash)
HASH_ALGORITHMS: dict[str, str] = {
    "MD5": "md5", "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512",
}


class _Function:
    """A Python function as jsonata calls it: `call(input, args)`."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function

    def call(self, input: Any, args: Sequence[Any] | None) -> Any:
        return self.function(*(args or ()))


def jsonata_function(function: Callable[..., Any], signature: str) -> Any:
    """A Python function as a JSONata function of `signature` (JSONata's signature syntax, e.g. `<n-n:n>`)."""
    import jsonata

    return jsonata.Jsonata.JFunction(_Function(function), signature)


# AWS bounds an evaluation's memory, not `$range` itself: 200,000 items pass, 900,000 fail with this
# text (measured on AWS, floci-io/floci#2676 and #2737). A range past the bound fails the same way here,
# before it is built, so no expression can exhaust the memory every execution shares.
MAX_RANGE_ITEMS = 500_000
MEMORY_LIMIT = "Expression evaluation memory limit exceeded: Check for excessive memory usage"


class ArgumentError(ValueError):
    """A Step Functions function refused its arguments; the message says which and why."""


def _whole(number: float) -> int:
    """A number argument as AWS takes it: truncated toward zero (a Java cast to long)."""
    return int(number)


def _partition(items: list[Any], size: float) -> list[list[Any]]:
    chunk = _whole(size)
    if chunk < 1:
        raise ArgumentError(f"The size argument of $partition must be a positive integer, but was {size}")
    return [list(items[start:start + chunk]) for start in range(0, len(items), chunk)]


def _range(start: float, end: float, step: float) -> list[int]:
    """From `start` to `end` (included when a step lands on it), as a JSONata sequence."""
    from jsonata.utils import Utils

    first, last, increment = _whole(start), _whole(end), _whole(step)
    if increment == 0:
        return Utils.create_sequence()
    values = range(first, last + (1 if increment > 0 else -1), increment)
    if len(values) > MAX_RANGE_ITEMS:  # refused before anything is allocated
        raise ArgumentError(MEMORY_LIMIT)
    return Utils.create_sequence_from_iter(values)


def _hash(data: Any, algorithm: str = "SHA-256") -> str:
    if algorithm not in HASH_ALGORITHMS:
        raise ArgumentError(f"The hashing algorithm '{algorithm}' is not supported; use one of "
                            f"{', '.join(HASH_ALGORITHMS)}")
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    import hashlib

    return hashlib.new(HASH_ALGORITHMS[algorithm], text.encode("utf-8")).hexdigest()


def _parse(text: str) -> Any:
    """JSON text as a JSONata value: the text `null` is JSON's null, a value (as `$states.input` holds
    it), not JSONata's undefined."""
    from jsonata.utils import Utils

    try:
        value = json.loads(text)
    except ValueError:
        raise ArgumentError(f"The argument of $parse is not JSON text: {text}") from None
    return Utils.NULL_VALUE if value is None else value


@functools.cache
def step_functions_additions() -> dict[str, Any]:
    """Step Functions' own functions besides `$uuid`/`$random` (bound per execution, see
    `drawing_functions`), made once jsonata is imported."""
    return {
        "partition": jsonata_function(_partition, "<an:a>"),
        "range": jsonata_function(_range, "<nnn:a>"),
        "hash": jsonata_function(_hash, "<xs?:s>"),
        "parse": jsonata_function(_parse, "<s:x>"),
    }


# JSONata functions Step Functions leaves out ("$eval is not available; use $parse"): calling one is
# calling an unknown function, T1006 "Attempted to invoke a non-function" (as recorded for one).
UNAVAILABLE: dict[str, Any] = {"eval": None}


DRAWING_FUNCTIONS = ("uuid", "random")


@functools.lru_cache(maxsize=256)
def drawing_functions(randomness: Randomness) -> dict[str, Any]:
    """`$uuid()` and `$random()` drawing from the execution's source (bound only for the expressions
    that name them, made once per execution); `$random(seed)` stays repeatable by its seed."""
    def draw(seed: float | None = None) -> float:
        return java_random_double(_whole(seed)) if seed is not None else randomness.random()

    return {"uuid": jsonata_function(randomness.uuid, "<:s>"), "random": jsonata_function(draw, "<n?:n>")}


_MULTIPLIER, _ADDEND, _MASK = 0x5DEECE66D, 0xB, (1 << 48) - 1


def java_random_double(seed: int) -> float:
    """`new java.util.Random(seed).nextDouble()`: AWS's `$random(seed)`, bit for bit."""
    state = (seed ^ _MULTIPLIER) & _MASK

    def next_bits(bits: int) -> int:
        nonlocal state
        state = (state * _MULTIPLIER + _ADDEND) & _MASK
        return state >> (48 - bits)

    high = next_bits(26)
    return ((high << 27) + next_bits(27)) * 2.0**-53


def clock_functions(scope: ExpressionScope) -> tuple[Any, Any]:
    """`$now()` and `$millis()` on the execution's clock rather than the wall clock."""
    from jsonata.functions import Functions

    millis = int(scope.now().timestamp() * 1000)
    return (
        jsonata_function(lambda picture=None, timezone=None: Functions.datetime_from_millis(millis, picture, timezone), "<s?s?:s>"),
        jsonata_function(lambda: millis, "<:n>"),
    )
