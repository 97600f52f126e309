"""ISO 8601 durations as the draft writes them: `PT15M`, `P2DT3H4M`, `PT0.5S`, and the repeating
form of retry intervals, `R5/PT1M` (repeat 5 times, every minute). Years and months have no fixed
length and are refused."""

from __future__ import annotations

import re

_DURATION = re.compile(
    r"P(?:(?P<weeks>\d+(?:\.\d+)?)W)?(?:(?P<days>\d+(?:\.\d+)?)D)?"
    r"(?:T(?:(?P<hours>\d+(?:\.\d+)?)H)?(?:(?P<minutes>\d+(?:\.\d+)?)M)?(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?"
)
_REPEATING = re.compile(r"R(?P<count>\d*)/(?P<duration>.+)")
_SECONDS = {"weeks": 604800, "days": 86400, "hours": 3600, "minutes": 60, "seconds": 1}


class InvalidDuration(ValueError):
    pass


def duration_seconds(text: object) -> float:
    """The seconds an ISO 8601 duration spans; InvalidDuration otherwise."""
    if not isinstance(text, str):
        raise InvalidDuration(f"{text!r} is not an ISO 8601 duration (a string such as 'PT15M')")
    match = _DURATION.fullmatch(text.strip())
    if match is None or text.strip() in ("P", "PT") or text.strip().endswith("T"):
        raise InvalidDuration(f"'{text}' is not an ISO 8601 duration such as 'PT15M' or 'P2DT3H4M'")
    return sum(float(value) * _SECONDS[unit] for unit, value in match.groupdict().items() if value)


def repeating_interval(text: object) -> tuple[int | None, float]:
    """(repetitions or None, seconds) of `R5/PT1M` or a plain duration."""
    if isinstance(text, str):
        match = _REPEATING.fullmatch(text.strip())
        if match is not None:
            count = int(match.group("count")) if match.group("count") else None
            return count, duration_seconds(match.group("duration"))
    return None, duration_seconds(text)
