"""The Wait state: Seconds, SecondsPath, Timestamp, TimestampPath (or their JSONata expressions) give
the time it sleeps until; AWS refuses delays longer than MAX_WAIT_SECONDS."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.jsonata_expressions import QueryEvaluationError
from sfn_emulator.asl.model import JSON, WaitState
from sfn_emulator.asl.timestamps import parse_timestamp
from sfn_emulator.engine.effects import Interpreter, Sleep
from sfn_emulator.engine.frame import Frame, to_json_text
from sfn_emulator.engine.states.processing import assign, effective_input, apply_output_path, jsonata_output, shown


MAX_WAIT_SECONDS = 2**31 - 1  # AWS refuses longer delays: "Wait state delay is too long."

def _parameter_value(path: Any, value: JSON, frame: Frame, field: str) -> JSON:
    """SecondsPath / TimestampPath: a miss has its own wording on AWS."""
    try:
        return path.evaluate(value, frame)
    except LookupError:
        raise StatesError(names.RUNTIME, f"The {field} parameter does not reference an input value: {path.text}") from None


# -- waiting ---------------------------------------------------------------------------------------

def run_wait(state: WaitState, raw: JSON, frame: Frame) -> Interpreter:
    if state.jsonata:
        return (yield from run_jsonata_wait(state, raw, frame))
    value = effective_input(state, raw, frame)
    now = frame.run.now()
    if state.seconds is not None:
        due = now + timedelta(seconds=state.seconds)
    elif state.seconds_path is not None:
        due = now + timedelta(seconds=_seconds_from_path(state.seconds_path, value, frame))
    else:
        if state.timestamp is not None:
            due = parse_timestamp(state.timestamp)
        else:
            due = _timestamp_from_path(state.timestamp_path, value, frame)
        if due is not None and (due - now).total_seconds() > MAX_WAIT_SECONDS:
            raise StatesError(names.RUNTIME, "Wait state delay is too long.")
    if due > now:
        yield Sleep(due)
    assign(state.assign, value, frame)
    return apply_output_path(state, value, frame), state.next


def run_jsonata_wait(state: WaitState, raw: JSON, frame: Frame) -> Interpreter:
    states = {"input": raw}
    now = frame.run.now()
    if state.seconds is not None:
        due = now + timedelta(seconds=state.seconds)
    elif state.seconds_expression is not None:
        seconds = state.seconds_expression.evaluate(states, frame)
        due = now + timedelta(seconds=min(seconds, MAX_WAIT_SECONDS))
    else:
        stamp = state.timestamp_expression.evaluate(states, frame) if state.timestamp_expression else state.timestamp
        parsed = parse_timestamp(stamp) if isinstance(stamp, str) else None
        if parsed is None:
            raise QueryEvaluationError("The Timestamp field cannot be parsed as an ISO-8601 extended offset date-time "
                                       f"format string: {shown(stamp)}", "Timestamp")
        due = parsed
    if (due - now).total_seconds() > MAX_WAIT_SECONDS:
        raise StatesError(names.RUNTIME, "Wait state delay is too long.")
    if due > now:
        yield Sleep(due)
    assign(state.assign, states, frame)
    return jsonata_output(state.output, states, raw, frame), state.next


def _seconds_from_path(path: Any, value: JSON, frame: Frame) -> int:
    seconds = _parameter_value(path, value, frame, "SecondsPath")
    text = path.text
    if isinstance(seconds, bool) or not isinstance(seconds, int):
        if isinstance(seconds, float) and seconds.is_integer():
            seconds = int(seconds)
        else:
            raise StatesError(names.RUNTIME, f"The SecondsPath parameter cannot be parsed as a long value: "
                                             f"{text} == {to_json_text(seconds)}")
    if seconds < 0:
        raise StatesError(names.RUNTIME, f"The SecondsPath parameter references a negative value: {text} == {seconds}")
    if seconds > MAX_WAIT_SECONDS:
        raise StatesError(names.RUNTIME, "Wait state delay is too long.")
    return seconds


def _timestamp_from_path(path: Any, value: JSON, frame: Frame) -> datetime:
    stamp = _parameter_value(path, value, frame, "TimestampPath")
    parsed = parse_timestamp(stamp) if isinstance(stamp, str) else None
    if parsed is None:
        shown = stamp if isinstance(stamp, str) else to_json_text(stamp)
        raise StatesError(names.RUNTIME, "The TimestampPath parameter does not reference a valid ISO-8601 extended "
                                         f"offset date-time format string: {path.text} == {shown}")
    return parsed
