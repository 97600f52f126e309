"""The wait before each retry, as the ASL specification and AWS's guide define it."""

from __future__ import annotations

import pytest

from sfn_emulator.asl.model import Retrier
from sfn_emulator.asl.retrying import backoff_seconds

RETRIER_WAITS = [
    # (Retrier fields, the waits before retries 1, 2, 3, ...)
    ({}, [1.0, 2.0, 4.0]),  # the defaults: IntervalSeconds 1, BackoffRate 2.0
    ({"interval_seconds": 3, "backoff_rate": 1.5}, [3.0, 4.5]),  # the specification's example
    ({"interval_seconds": 2, "backoff_rate": 1.0}, [2.0, 2.0, 2.0]),
    ({"interval_seconds": 1, "backoff_rate": 3.0, "max_delay_seconds": 5}, [1.0, 3.0, 5.0, 5.0]),
    ({"interval_seconds": 10, "max_delay_seconds": 4}, [4.0, 4.0]),  # the cap holds from the first retry
]


@pytest.mark.parametrize(("fields", "waits"), RETRIER_WAITS)
def test_each_retry_waits_the_interval_grown_by_the_backoff_rate_up_to_the_cap(fields, waits):
    retrier = Retrier(error_equals=("States.ALL",), **fields)
    assert [backoff_seconds(retrier, retries) for retries in range(len(waits))] == waits
