"""Durations as SM4C writes them: .NET TimeSpan text (`[d.]hh:mm[:ss[.fffffff]]`, or whole days)
or ISO 8601 durations (`PT10S`, `P1DT2H`), the two forms its reference runtime reads."""

from __future__ import annotations

import re

_TIMESPAN = re.compile(r"\A(-)?(?:(\d+)\.)?(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,7}))?)?\Z")
_DAYS = re.compile(r"\A(\d+)\Z")
_ISO = re.compile(r"\AP(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?\Z")


def parse_timespan(text: str) -> float | None:
    """Seconds, or None when `text` is neither form (or a negative span)."""
    text = text.strip()
    if (days := _DAYS.match(text)) is not None:
        return int(days.group(1)) * 86400.0
    if (span := _TIMESPAN.match(text)) is not None:
        sign, day, hours, minutes, seconds, fraction = span.groups()
        if sign or int(hours) > 23 or int(minutes) > 59 or int(seconds or 0) > 59:
            return None
        total = int(day or 0) * 86400 + int(hours) * 3600 + int(minutes) * 60 + int(seconds or 0)
        return total + (int(fraction.ljust(7, "0")) / 10**7 if fraction else 0.0)
    if (iso := _ISO.match(text)) is not None and text not in ("P", "PT") and not text.endswith("T"):
        day, hours, minutes, seconds = (float(part) if part else 0.0 for part in iso.groups())
        return day * 86400 + hours * 3600 + minutes * 60 + seconds
    return None
