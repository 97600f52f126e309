"""ASL timestamps: the RFC 3339 profile with an uppercase T and Z."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from sfn_emulator.asl.timestamps import is_timestamp, parse_timestamp


@pytest.mark.parametrize("text, expected", [
    ("2016-03-14T01:59:00Z", datetime(2016, 3, 14, 1, 59, tzinfo=timezone.utc)),
    ("2016-03-14T01:59:00.5Z", datetime(2016, 3, 14, 1, 59, 0, 500000, tzinfo=timezone.utc)),
    ("2016-03-14T01:59:00.123456789Z", datetime(2016, 3, 14, 1, 59, 0, 123456, tzinfo=timezone.utc)),
    ("2016-03-14T01:59:00+05:30", datetime(2016, 3, 14, 1, 59, tzinfo=timezone(timedelta(hours=5, minutes=30)))),
    ("2016-03-14T01:59:00-01:00", datetime(2016, 3, 14, 2, 59, tzinfo=timezone.utc)),
    ("2024-02-29T23:59:59Z", datetime(2024, 2, 29, 23, 59, 59, tzinfo=timezone.utc)),
])
def test_accepted_timestamps(text: str, expected: datetime) -> None:
    assert parse_timestamp(text) == expected
    assert is_timestamp(text)


@pytest.mark.parametrize("text", [
    "yesterday",
    "2016-03-14",  # no time
    "2016-03-14T01:59:00",  # no zone
    "2016-03-14t01:59:00Z",  # lowercase t
    "2016-03-14T01:59:00z",  # lowercase z
    "2016-03-14 01:59:00Z",  # space separator
    "2016-03-14T01:59Z",  # no seconds
    "2016-03-14T01:59:00.Z",  # empty fraction
    "2016-03-14T01:59:00+0530",  # offset without colon
    "2016-13-14T01:59:00Z",  # month 13
    "2023-02-29T01:59:00Z",  # not a leap year
    "2016-03-14T24:00:00Z",  # hour 24
    "2016-03-14T01:59:00+24:00",  # offset out of range
    " 2016-03-14T01:59:00Z",  # surrounding blank
])
def test_refused_timestamps(text: str) -> None:
    assert parse_timestamp(text) is None
    assert not is_timestamp(text)
