"""What every state family shares besides its input/output processing (each state's `io`,
`sfn_emulator.asl.state_io`): the failure of a branch, the rules a visit applied, error details."""

from __future__ import annotations

from typing import Callable

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.limits import within_payload_limit
from sfn_emulator.asl.model import JSON, MapState, StateMachine
from sfn_emulator.engine.effects import Aborted, Interpreter
from sfn_emulator.engine.frame import Frame

MachineRunner = Callable[[StateMachine, JSON, Frame], Interpreter]  # runs a branch or an item processor


class BranchFailure(StatesError):
    """The failure of a Parallel branch or Map iteration, as seen by its state: it emits
    `ParallelStateFailed`/`MapStateFailed` once the error leaves the state."""


def note_rule(frame: Frame, rule: str) -> None:
    """Note beside the history which rule this state visit applied (`Execution.rules_taken`)."""
    frame.run.execution.rules_taken.setdefault(frame.entered_event_id, []).append(rule)


def error_details(error: StatesError) -> dict[str, str]:
    return {key: value for key, value in (("error", error.error), ("cause", error.cause)) if value is not None}


def item_selected(state: MapState, value: JSON, scope: Frame) -> JSON:
    """A Map item as ItemSelector makes it, within the payload quota (the Map state named if not)."""
    selected = state.item_selector.evaluate(value, scope)
    within_payload_limit(selected, state.name)
    return selected


def map_iteration(frame: Frame, name: str, index: int, work: Interpreter) -> Interpreter:
    """`work` run as iteration `index` of the Map-like state `name`, between the events AWS records
    for it: MapIterationStarted, then Succeeded, Failed (an error left it) or Aborted."""
    ids = {"name": name, "index": index}
    frame.emit("MapIterationStarted", "mapIterationStartedEventDetails", ids)
    try:
        output = yield from work
    except StatesError:
        frame.emit("MapIterationFailed", "mapIterationFailedEventDetails", ids)
        raise
    except Aborted:
        frame.emit("MapIterationAborted", "mapIterationAbortedEventDetails", ids)
        raise
    frame.emit("MapIterationSucceeded", "mapIterationSucceededEventDetails", ids)
    return output
