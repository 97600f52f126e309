"""ASL timestamps: the RFC 3339 profile Step Functions accepts in Wait `Timestamp` and the
`Timestamp*` Choice comparisons.

The ASL specification requires an uppercase `T` between date and time and an uppercase `Z` when
there is no numeric offset (`2016-03-14T01:59:00Z`); fractional seconds and `+HH:MM` offsets are
allowed. Anything else is not a timestamp.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

_RFC3339 = re.compile(
    r"(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})"
    r"T(?P<hour>\d{2}):(?P<minute>\d{2}):(?P<second>\d{2})"
    r"(?:\.(?P<fraction>\d+))?"
    r"(?:(?P<utc>Z)|(?P<sign>[+-])(?P<offset_hours>\d{2}):(?P<offset_minutes>\d{2}))"
)
# AWS's schema error for a literal timestamp (Wait `Timestamp`, Choice `Timestamp*`) outside this profile.
NOT_A_TIMESTAMP = "String does not match RFC3339 timestamp"


def parse_timestamp(text: str) -> datetime | None:
    """The timezone-aware datetime `text` denotes, or None when it is not an ASL timestamp.

    Fractions finer than a microsecond are truncated (Python's datetime resolution).
    """
    match = _RFC3339.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        return None
    if match["utc"]:
        zone = timezone.utc
    else:
        hours, minutes = int(match["offset_hours"]), int(match["offset_minutes"])
        if hours > 23 or minutes > 59:
            return None
        offset = timedelta(hours=hours, minutes=minutes)
        zone = timezone(-offset if match["sign"] == "-" else offset)
    microsecond = int((match["fraction"] or "0")[:6].ljust(6, "0"))
    try:
        return datetime(
            int(match["year"]), int(match["month"]), int(match["day"]),
            int(match["hour"]), int(match["minute"]), int(match["second"]),
            microsecond, tzinfo=zone,
        )
    except ValueError:  # a field out of range: month 13, February 30, hour 24...
        return None


def is_timestamp(text: str) -> bool:
    """True when `text` is a timestamp Step Functions accepts."""
    return parse_timestamp(text) is not None
