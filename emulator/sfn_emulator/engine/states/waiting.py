"""The Wait state: its Seconds or Timestamp (written as a literal, a `…Path` or a JSONata expression,
compiled into one field) gives the time it sleeps until; AWS refuses a time further than
MAX_WAIT_SECONDS away."""

from __future__ import annotations

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.fields import MAX_WAIT_SECONDS, WAIT_TOO_LONG
from sfn_emulator.asl.model import JSON, WaitState
from sfn_emulator.asl.state_io import assign
from sfn_emulator.clock.virtual_clock import after
from sfn_emulator.engine.effects import Interpreter, Sleep
from sfn_emulator.engine.frame import Frame


def run_wait(state: WaitState, raw: JSON, frame: Frame) -> Interpreter:
    value = state.io.state_input(raw, frame)
    now = frame.entered_time or frame.run.now()  # a Wait counts from its state's entry
    if state.seconds is not None:
        due = after(now, state.seconds.evaluate(value, frame))
    else:
        due = state.timestamp.evaluate(value, frame)
        if (due - now).total_seconds() > MAX_WAIT_SECONDS:
            raise StatesError(names.RUNTIME, WAIT_TOO_LONG)
    if due > now:
        yield Sleep(due)
    assign(state.assign, value, frame)
    return state.io.output(raw, value, frame), state.next
