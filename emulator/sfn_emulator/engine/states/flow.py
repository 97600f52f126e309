"""The states that only move data or end the machine: Pass, Choice, Succeed and Fail."""

from __future__ import annotations

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.model import JSON, ChoiceState, FailState, PassState, SucceedState
from sfn_emulator.asl.state_io import assign
from sfn_emulator.engine.frame import Frame
from sfn_emulator.engine.states.processing import note_rule


def run_pass(state: PassState, raw: JSON, frame: Frame) -> tuple[JSON, str | None]:
    value = state.io.state_input(raw, frame)
    return state.io.pass_output(raw, value, state.result, state.assign, frame), state.next


def run_choice(state: ChoiceState, raw: JSON, frame: Frame) -> tuple[JSON, str | None]:
    """The first matching rule's Next (its Assign and, in JSONata, Output apply), else Default (the
    state's own Assign and Output apply)."""
    value = state.io.state_input(raw, frame)
    for index, branch in enumerate(state.choices):
        if branch.condition.matches(value, frame):
            note_rule(frame, f"Choices[{index}]")
            assign(branch.assign, value, frame)
            return state.io.choice_output(raw, value, branch, frame), branch.next
    if state.default is not None:
        note_rule(frame, "Default")
        assign(state.assign, value, frame)
        return state.io.output(raw, value, frame), state.default
    raise StatesError(names.NO_CHOICE_MATCHED, "No Matches!")


def run_succeed(state: SucceedState, raw: JSON, frame: Frame) -> tuple[JSON, str | None]:
    return state.io.output(raw, state.io.state_input(raw, frame), frame), None


def run_fail(state: FailState, raw: JSON, frame: Frame) -> tuple[JSON, str | None]:
    """Fail with the Error and Cause given (Fail has no InputPath: its paths read the state input)."""
    value = state.io.unprocessed_input(raw)
    error = state.error.evaluate(value, frame) if state.error is not None else None
    cause = state.cause.evaluate(value, frame) if state.cause is not None else None
    raise StatesError(error, cause)
