"""Regular expressions a workflow writes (JSONata's `/pattern/flags`, JSONPath filters' `=~ /pattern/`),
matched with a time bound.

jsonata-python matches with Python's `re`, whose backtracking holds the GIL for as long as it runs: a
pattern such as `/^(\\w+\\s?)*$/` on 30 characters that do not match takes tens of seconds, and one such
`$match` would freeze every execution and the API. The `regex` module matches the same syntax, releases
the GIL while it matches (`concurrent`), handles many such patterns in linear time, and stops any match
after `MATCH_SECONDS` with TimeoutError, which the caller turns into the state's evaluation error. A
time bound is the only bound a regular expression engine offers; it decides only for matches that
would run for seconds, never for the patterns a workflow uses in practice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sfn_emulator.asl.errors import RUNTIME, StatesError

MATCH_SECONDS = 2.0


class RegexTimeout(StatesError):
    """A match ran past MATCH_SECONDS: States.Runtime where it surfaces as it is (a JSONPath filter);
    a JSONata field words it as its own evaluation error."""

    def __init__(self, pattern: str, seconds: float) -> None:
        self.pattern = pattern
        self.seconds = seconds
        super().__init__(RUNTIME, self.reason)

    @property
    def reason(self) -> str:
        return f"The regular expression /{self.pattern}/ did not finish matching within {self.seconds:g} seconds."


class BoundedPattern:
    """The operations jsonata-python (search, finditer, split, sub) and JSONPath filters (`=~`: fullmatch)
    ask of a compiled pattern, each bounded in time."""

    __slots__ = ("_pattern", "_plain")

    def __init__(self, pattern: str, flags: int) -> None:
        import regex  # on first use: most expressions have no regular expression

        self._plain = re.compile(pattern, flags)  # `re`'s syntax errors and template errors (see sub)
        self._pattern = regex.compile(pattern, flags)

    def search(self, string: str) -> Any:
        return self._bounded(self._pattern.search, string)

    def fullmatch(self, string: str) -> Any:
        return self._bounded(self._pattern.fullmatch, string)

    def finditer(self, string: str) -> Iterator[Any]:
        return iter(self._bounded(lambda text, **bounds: list(self._pattern.finditer(text, **bounds)), string))

    def split(self, string: str, maxsplit: int = 0) -> list[str]:
        return self._bounded(lambda text, **bounds: self._pattern.split(text, maxsplit, **bounds), string)

    def sub(self, repl: Any, string: str, count: int = 0) -> str:
        if isinstance(repl, str):
            # jsonata-python reads `re`'s words for a bad group reference ("invalid group reference 12 at
            # position 3") to retry `$12` as `$1` then "2"; `re` checks the template before matching anything
            self._plain.sub(repl, "")
        return self._bounded(lambda text, **bounds: self._pattern.sub(repl, text, count, **bounds), string)

    def _bounded(self, operation: Any, string: str) -> Any:
        try:
            return operation(string, timeout=MATCH_SECONDS, concurrent=True)
        except TimeoutError:
            raise RegexTimeout(self._pattern.pattern, MATCH_SECONDS) from None


def bounded_regex_engine(pattern: str, flags: Any) -> BoundedPattern:
    """jsonata-python's `regex_engine`: compile a regex literal with its `i` and `m` flags."""
    native = (re.IGNORECASE if flags.case_insensitive else 0) | (re.MULTILINE if flags.multiline else 0)
    return BoundedPattern(pattern, native)
