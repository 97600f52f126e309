"""The states that only move data or end the machine: Pass, Choice, Succeed and Fail."""

from __future__ import annotations


from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.model import JSON, ChoiceState, FailState, PassState, SucceedState
from sfn_emulator.engine.frame import Frame
from sfn_emulator.engine.states.processing import (
    note_rule,
    assign,
    effective_input,
    apply_output_path,
    apply_parameters,
    apply_result_path,
    jsonata_output,
)


def run_pass(state: PassState, raw: JSON, frame: Frame) -> tuple[JSON, str | None]:
    if state.jsonata:
        states = {"input": raw}
        assign(state.assign, states, frame)
        return jsonata_output(state.output, states, raw, frame), state.next
    value = effective_input(state, raw, frame)
    result = state.result if state.has_result else apply_parameters(state, value, frame)
    assign(state.assign, result, frame)
    return apply_output_path(state, apply_result_path(state, raw, result, frame), frame), state.next


def run_choice(state: ChoiceState, raw: JSON, frame: Frame) -> tuple[JSON, str | None]:
    """The first matching rule's Next (its Assign and, in JSONata, Output apply), else Default (the
    state's own Assign and Output apply)."""
    value: JSON = {"input": raw} if state.jsonata else effective_input(state, raw, frame)
    for index, branch in enumerate(state.choices):
        if branch.condition.matches(value, frame):
            note_rule(frame, f"Choices[{index}]")
            assign(branch.assign, value, frame)
            if state.jsonata:
                return jsonata_output(branch.output, value, raw, frame), branch.next
            return apply_output_path(state, value, frame), branch.next
    if state.default is not None:
        note_rule(frame, "Default")
        assign(state.assign, value, frame)
        if state.jsonata:
            return jsonata_output(state.output, value, raw, frame), state.default
        return apply_output_path(state, value, frame), state.default
    raise StatesError(names.NO_CHOICE_MATCHED, "No Matches!")


def run_succeed(state: SucceedState, raw: JSON, frame: Frame) -> tuple[JSON, str | None]:
    if state.jsonata:
        return jsonata_output(state.output, {"input": raw}, raw, frame), None
    return apply_output_path(state, effective_input(state, raw, frame), frame), None


def run_fail(state: FailState, raw: JSON, frame: Frame) -> tuple[JSON, str | None]:
    """Fail with the Error and Cause given (Fail has no InputPath: its paths read the state input)."""
    value: JSON = {"input": raw} if state.jsonata else raw
    error = state.error.evaluate(value, frame) if state.error is not None else None
    cause = state.cause.evaluate(value, frame) if state.cause is not None else None
    raise StatesError(error, cause)
