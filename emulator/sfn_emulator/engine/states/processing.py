"""What every state family shares besides its input/output processing (each state's `io`,
`sfn_emulator.asl.state_io`): the failure of a branch, the rules a visit applied, a Map iteration's events."""

from __future__ import annotations

from typing import Callable

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.limits import within_payload_limit
from sfn_emulator.asl.model import JSON, MapState, StateMachine
from sfn_emulator.engine.effects import Aborted, Interpreter
from sfn_emulator.engine.frame import Frame
from sfn_emulator.protocol.history_events import (
    MAP_ITERATION_ABORTED,
    MAP_ITERATION_FAILED,
    MAP_ITERATION_STARTED,
    MAP_ITERATION_SUCCEEDED,
    EventBody,
    map_iteration_event,
)

MachineRunner = Callable[[StateMachine, JSON, Frame], Interpreter]  # runs a branch or an item processor


class BranchFailure(StatesError):
    """The failure of a Parallel branch or Map iteration, as seen by its state: it emits
    `ParallelStateFailed`/`MapStateFailed` once the error leaves the state."""


def note_rule(frame: Frame, rule: str) -> None:
    """Note beside the history which rule this state visit applied (`Execution.rules_taken`)."""
    frame.run.execution.rules_taken.setdefault(frame.entered_event_id, []).append(rule)


def item_selected(state: MapState, value: JSON, scope: Frame) -> JSON:
    """A Map item as ItemSelector makes it, within the payload quota (the Map state named if not)."""
    selected = state.item_selector.evaluate(value, scope)
    within_payload_limit(selected, state.name)
    return selected


def map_iteration(frame: Frame, name: str, index: int, work: Interpreter, parent: Frame | None = None) -> Interpreter:
    """`work` run as iteration `index` of the Map-like state `name`, between the events AWS records
    for it: MapIterationStarted, then Succeeded, Failed (an error left it) or Aborted. When it ends,
    the Map's own line (`parent`) goes on from the iteration's last event, not from its closing
    one: AWS links the next iteration's MapIterationStarted and the Map's MapStateFailed there."""
    frame.emit(map_iteration_event(MAP_ITERATION_STARTED, name, index))
    try:
        output = yield from work
    except StatesError:
        _iteration_ended(frame, parent, map_iteration_event(MAP_ITERATION_FAILED, name, index))
        raise
    except Aborted:
        frame.emit(map_iteration_event(MAP_ITERATION_ABORTED, name, index), advance=False)
        raise
    _iteration_ended(frame, parent, map_iteration_event(MAP_ITERATION_SUCCEEDED, name, index))
    return output


def _iteration_ended(frame: Frame, parent: Frame | None, ended: EventBody) -> None:
    frame.emit(ended, advance=False)
    if parent is not None:
        parent.prev_event_id = frame.prev_event_id


def branch_ended(frame: Frame, parent: Frame, work: Interpreter) -> Interpreter:
    """A Parallel branch: when it ends, the Parallel's line goes on from the branch's last event
    (ParallelStateFailed links to the failing branch's, ParallelStateExited to the last one's)."""
    try:
        output = yield from work
    except StatesError:
        parent.prev_event_id = frame.prev_event_id
        raise
    parent.prev_event_id = frame.prev_event_id
    return output
