"""The emulator as part of a local cloud, through moto's EventBridge and EventBridge Scheduler on the
same endpoint: Standard executions emit their status changes, rules and schedules start executions and
reach their other targets, and schedules fire on the emulator's clock. An extension of the core: the
runtime connects one `EventBridge` per emulator (`connection.py`); the core never imports it."""

from sfn_emulator.eventbridge.connection import EventBridge

__all__ = ["EventBridge"]
