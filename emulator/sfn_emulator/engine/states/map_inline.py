"""The inline Map state and what every Map reads from its input: the items (ItemsPath / Items) and
MaxConcurrency."""

from __future__ import annotations

from typing import Callable

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.limits import within_payload_limit
from sfn_emulator.asl.model import JSON, MapState
from sfn_emulator.engine.effects import Fork, Interpreter
from sfn_emulator.engine.frame import Frame
from sfn_emulator.engine.states.processing import BranchFailure, MachineRunner, item_selected, map_iteration
from sfn_emulator.protocol.history_events import map_state_started, map_state_succeeded


def run_map(state: MapState, raw: JSON, frame: Frame, run_iteration: MachineRunner) -> Interpreter:
    """An inline Map: each item runs the item processor in this execution, at most MaxConcurrency at once."""
    value = state.io.state_input(raw, frame)
    items = state.io.items(value, frame)
    max_concurrency = state.max_concurrency.evaluate(value, frame)
    _inspect_selection(state, value, items, frame)
    frame.emit(map_state_started(len(items)))
    iterations = [_iteration_runner(run_iteration, state, value, index, item, frame) for index, item in enumerate(items)]
    try:
        results = yield Fork(iterations, max_concurrency=max_concurrency)
    except StatesError as error:
        raise BranchFailure(error.error, error.cause) from None
    # AWS links MapStateSucceeded, and the MapStateExited after it, to the last MapIterationSucceeded.
    frame.prev_event_id = frame.run.execution.history[-1].id
    frame.emit(map_state_succeeded(), advance=False)
    within_payload_limit(results, state.name)
    return state.io.result_output(raw, results, state.assign, frame), state.next


def _iteration_runner(run_iteration: MachineRunner, state: MapState, value: JSON, index: int, item: JSON, frame: Frame) -> Callable[[], Interpreter]:
    def iteration() -> Interpreter:
        child = frame.child(map_item=(index, item), place=(state.name, index))
        child.state_name, child.entered_time = frame.state_name, frame.entered_time

        def work() -> Interpreter:  # ItemSelector's failure fails the iteration too
            item_input = item_selected(state, value, child) if state.item_selector is not None else item
            child.map_item = None
            return (yield from run_iteration(state.item_processor, item_input, child))

        return (yield from map_iteration(child, state.name, index, work(), parent=frame))

    return iteration


def _inspect_selection(state: MapState, value: JSON, items: list[JSON], frame: Frame) -> None:
    """TestState reports the input of every iteration as ItemSelector makes it (`afterItemSelector`),
    whether or not the iterations run (a tested Map's iterations are mocked)."""
    if frame.inspection is None or state.item_selector is None:
        return
    selected = []
    for index, item in enumerate(items):
        child = frame.child(map_item=(index, item))
        child.state_name, child.entered_time = frame.state_name, frame.entered_time
        selected.append(item_selected(state, value, child))
    frame.inspect("afterItemSelector", selected)
