"""How long a Retrier waits before a retry: one rule for executions and for TestState's report."""

from __future__ import annotations

from sfn_emulator.asl.model import Retrier


def backoff_seconds(retrier: Retrier, retries: int) -> float:
    """The nominal wait before retry number `retries + 1` (ASL: `IntervalSeconds` grown by `BackoffRate`
    on each retry; AWS: capped by `MaxDelaySeconds`). `JitterStrategy` FULL then draws the actual wait
    between 0 and this, which only an execution does (TestState reports this nominal value)."""
    delay = retrier.interval_seconds * retrier.backoff_rate**retries
    if retrier.max_delay_seconds is not None:
        delay = min(delay, retrier.max_delay_seconds)
    return delay
