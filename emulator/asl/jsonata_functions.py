"""The functions Step Functions adds to JSONata (`$partition`, `$range`, `$hash`, `$parse`, `$uuid`,
`$random`), the one it leaves out (`$eval`), and `$now()`/`$millis()` on the execution's clock."""

from __future__ import annotations

import functools
import json
import random
from typing import Any, Callable, Sequence

from sfn_emulator.asl.model import Scope
from sfn_emulator.randomness import Randomness

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


def _partition(items: list[Any], size: float) -> list[list[Any]]:
    if not isinstance(size, (int, float)) or isinstance(size, bool) or size < 1 or size != int(size):
        from jsonata.jexception import JException

        raise JException("D3001", -1)  # "... must be a positive integer"
    size = int(size)
    return [list(items[start:start + size]) for start in range(0, len(items), size)]


def _range(start: float, end: float, step: float) -> list[float]:
    """From `start` to `end` (included when a step lands on it), as States.ArrayRange counts."""
    if step == 0:
        raise ValueError("The step of $range must not be zero")
    values = []
    current = start
    while (step > 0 and current <= end) or (step < 0 and current >= end):
        values.append(current)
        current += step
    return values


def _hash(data: Any, algorithm: str = "SHA-256") -> str:
    if algorithm not in HASH_ALGORITHMS:
        raise ValueError(f"The hashing algorithm '{algorithm}' is not supported; use one of {list(HASH_ALGORITHMS)}")
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    import hashlib

    return hashlib.new(HASH_ALGORITHMS[algorithm], text.encode("utf-8")).hexdigest()


def _parse(text: str) -> Any:
    """JSON text as a JSONata value: the text `null` is JSON's null, a value (as `$states.input` holds
    it), not JSONata's undefined."""
    from jsonata.utils import Utils

    value = json.loads(text)
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
    def draw(seed: Any = None) -> float:
        return random.Random(seed).random() if seed is not None else randomness.random()

    return {"uuid": jsonata_function(randomness.uuid, "<:s>"), "random": jsonata_function(draw, "<j?:n>")}


def clock_functions(scope: Scope) -> tuple[Any, Any]:
    """`$now()` and `$millis()` on the execution's clock rather than the wall clock."""
    from jsonata.functions import Functions

    millis = int(scope.now().timestamp() * 1000)
    return (
        jsonata_function(lambda picture=None, timezone=None: Functions.datetime_from_millis(millis, picture, timezone), "<s?s?:s>"),
        jsonata_function(lambda: millis, "<:n>"),
    )
