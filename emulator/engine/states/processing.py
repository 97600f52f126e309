"""What every state family shares: input/output processing (InputPath, Parameters, ResultSelector,
ResultPath, OutputPath; JSONata Arguments and Output), Assign, and the failure of a branch."""

from __future__ import annotations

from typing import Any, Callable

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.model import JSON, BaseState, StateMachine
from sfn_emulator.engine.effects import Interpreter
from sfn_emulator.engine.frame import Frame


MachineRunner = Callable[[StateMachine, JSON, Frame], Interpreter]  # runs a branch or an item processor


class BranchFailure(StatesError):
    """The failure of a Parallel branch or Map iteration, as seen by its state: it emits
    `ParallelStateFailed`/`MapStateFailed` once the error leaves the state."""


def note_rule(frame: Frame, rule: str) -> None:
    """Note beside the history which rule this state visit applied (`Execution.rules_taken`)."""
    frame.run.execution.rules_taken.setdefault(frame.entered_event_id, []).append(rule)


def assign(assign: Any, value: JSON, frame: Frame) -> None:
    """Evaluate an Assign now (on the state's result, or `$states` in JSONata); it is bound on exit."""
    if assign is not None:
        frame.assigned = assign.evaluate(value, frame)


# -- input and output processing -------------------------------------------------------------------

def evaluate_path(path: Any, value: JSON, frame: Frame) -> JSON:
    """InputPath / OutputPath / ItemsPath: None (JSON null in the definition) gives {}."""
    if path is None:
        return {}
    try:
        return path.evaluate(value, frame)
    except LookupError as missing:  # PathNotFound and friends
        raise StatesError(names.RUNTIME, _invalid_path_message(path, missing)) from None


def _invalid_path_message(path: Any, missing: Exception) -> str:
    reason = getattr(missing, "reason", None) or str(missing)
    return f"Invalid path '{path.text}' : {reason}"


def effective_input(state: BaseState, raw: JSON, frame: Frame) -> JSON:
    value = evaluate_path(state.input_path, raw, frame)
    frame.inspect("afterInputPath", value)
    return value


def apply_output_path(state: BaseState, value: JSON, frame: Frame) -> JSON:
    return evaluate_path(state.output_path, value, frame)


def apply_parameters(state: Any, value: JSON, frame: Frame) -> JSON:
    if state.parameters is not None:
        value = state.parameters.evaluate(value, frame)
        frame.inspect("afterParameters", value)
    return value


def apply_result_path(state: Any, raw: JSON, result: JSON, frame: Frame) -> JSON:
    output = raw if state.result_path is None else state.result_path.apply(raw, result)
    frame.inspect("afterResultPath", output)
    return output


def select_result(state: Any, result: JSON, frame: Frame) -> JSON:
    """ResultSelector on a result; TestState reports the step even without one (as AWS's recordings do)."""
    frame.inspect("result", result)
    selected = result if state.result_selector is None else state.result_selector.evaluate(result, frame)
    frame.inspect("afterResultSelector", selected)
    return selected


# -- simple states ---------------------------------------------------------------------------------

def jsonata_output(output: Any, states: dict[str, JSON], default: JSON, frame: Frame) -> JSON:
    """A JSONata state's (or rule's, or catcher's) Output, or `default` without one."""
    return output.evaluate(states, frame) if output is not None else default


def state_output(state: Any, raw: JSON, result: JSON, frame: Frame) -> JSON:
    """A Task's, Parallel's or Map's output from its result, its Assign evaluated on the way.
    JSONata: Output (else the result) on `$states`; JSONPath: the Assign reads the result, then
    ResultSelector, ResultPath and OutputPath."""
    if state.jsonata:
        states = {"input": raw, "result": result}
        assign(state.assign, states, frame)
        return jsonata_output(state.output, states, result, frame)
    assign(state.assign, result, frame)
    return apply_output_path(state, apply_result_path(state, raw, select_result(state, result, frame), frame), frame)


def jsonata_arguments(state: Any, states: dict[str, JSON], raw: JSON, frame: Frame) -> JSON:
    """A JSONata Task's or Parallel's Arguments (the state input without them)."""
    value = state.parameters.evaluate(states, frame) if state.parameters is not None else raw
    frame.inspect("afterArguments", value)
    return value


def error_details(error: StatesError) -> dict[str, str]:
    return {key: value for key, value in (("error", error.error), ("cause", error.cause)) if value is not None}
