"""The Parallel state: its branches run interleaved on the same input; its result is their outputs."""

from __future__ import annotations

from typing import Callable

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.limits import within_payload_limit
from sfn_emulator.asl.model import JSON, ParallelState, StateMachine
from sfn_emulator.engine.effects import Fork, Interpreter
from sfn_emulator.engine.frame import Frame
from sfn_emulator.engine.states.processing import BranchFailure, MachineRunner, branch_ended
from sfn_emulator.protocol.history_events import parallel_state_started


def run_parallel(state: ParallelState, raw: JSON, frame: Frame, run_branch: MachineRunner) -> Interpreter:
    """Run every branch on the (selected) input, interleaved; the result is their outputs in order."""
    value = state.io.arguments(state.io.state_input(raw, frame), raw, frame)
    frame.emit(parallel_state_started())
    branches = [_branch_runner(run_branch, branch, value, frame, (state.name, index))
                for index, branch in enumerate(state.branches)]
    try:
        results = yield Fork(branches, interleave=True)
    except StatesError as error:
        raise BranchFailure(error.error, error.cause) from None
    within_payload_limit(results, state.name)
    return state.io.result_output(raw, results, state.assign, frame), state.next


def _branch_runner(run_branch: MachineRunner, branch: StateMachine, value: JSON, frame: Frame,
                   place: tuple[str, int]) -> Callable[[], Interpreter]:
    def branch_run() -> Interpreter:
        child = frame.child(interleave=True, place=place)
        return branch_ended(child, frame, run_branch(branch, value, child))

    return branch_run
