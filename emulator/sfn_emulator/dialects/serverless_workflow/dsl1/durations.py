"""DSL 1.0 durations: an ISO 8601 duration text (`PT15M`, `P1DT2H`, read as the draft reads one)
or an object of `days`, `hours`, `minutes`, `seconds`, `milliseconds`."""

from __future__ import annotations

from typing import Any

from sfn_emulator.dialects.serverless_workflow.durations import InvalidDuration, duration_seconds

_UNITS = {"days": 86400, "hours": 3600, "minutes": 60, "seconds": 1, "milliseconds": 0.001}


def seconds_of(duration: Any) -> float:
    """The duration in seconds; ValueError saying why it is not one."""
    if isinstance(duration, dict):
        unknown = set(duration) - set(_UNITS)
        if unknown or not duration or not all(isinstance(v, (int, float)) and v >= 0 for v in duration.values()):
            raise ValueError(f"a duration object holds only {', '.join(_UNITS)} as non-negative numbers")
        return float(sum(_UNITS[unit] * value for unit, value in duration.items()))
    try:
        return duration_seconds(duration)
    except InvalidDuration as invalid:
        raise ValueError(f"{invalid} (or a duration object)") from None
