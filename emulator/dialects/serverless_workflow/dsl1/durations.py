"""DSL 1.0 durations: an ISO 8601 duration text (`PT15M`, `P1DT2H`) or an object of `days`,
`hours`, `minutes`, `seconds`, `milliseconds`."""

from __future__ import annotations

import re
from typing import Any

_ISO = re.compile(r"\AP(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?\Z")
_UNITS = {"days": 86400, "hours": 3600, "minutes": 60, "seconds": 1, "milliseconds": 0.001}


def seconds_of(duration: Any) -> float:
    """The duration in seconds; ValueError saying why it is not one."""
    if isinstance(duration, dict):
        unknown = set(duration) - set(_UNITS)
        if unknown or not duration or not all(isinstance(v, (int, float)) and v >= 0 for v in duration.values()):
            raise ValueError(f"a duration object holds only {', '.join(_UNITS)} as non-negative numbers")
        return float(sum(_UNITS[unit] * value for unit, value in duration.items()))
    if isinstance(duration, str):
        found = _ISO.match(duration)
        if found and duration not in ("P", "PT") and not duration.endswith("T"):
            days, hours, minutes, seconds = (float(part or 0) for part in found.groups())
            return days * 86400 + hours * 3600 + minutes * 60 + seconds
    raise ValueError(f"'{duration}' is not an ISO 8601 duration (PnDTnHnMnS) nor a duration object")
