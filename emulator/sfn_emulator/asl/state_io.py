"""A state's input and output processing, one object per query language, chosen by the parser.

JSONPath and JSONata move data through a state differently: JSONPath narrows the input with
InputPath, builds the request with Parameters, and places the result with ResultSelector,
ResultPath and OutputPath, its Assign reading the result; JSONata reads everything through
`$states` (`input`, `result`, `errorOutput`), builds the request with Arguments and the output with
Output, its Assign reading `$states` too. Each state's `io` is a `JsonPathIO` or a `JsonataIO`, so
the interpreter runs a state the same way whatever its language.

Every step a TestState inspection reports (`afterInputPath`, `afterParameters`, `afterArguments`,
`result`, `afterResultSelector`, `afterResultPath`, `afterItemsPath`) is reported here, where it
happens.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from msgspec import Struct

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.fields import invalid_path
from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.jsonata_expressions import QueryEvaluationError
from sfn_emulator.asl.limits import PROVIDED_PARAMETERS, within_payload_limit
from sfn_emulator.asl.model import (
    JSON,
    JSONATA,
    Catcher,
    ChoiceBranch,
    Constant,
    Expression,
    ResultPath,
    ExpressionScope,
)


class StateRun(ExpressionScope, Protocol):
    """Where a state runs, as its input/output processing sees it (the engine's `Frame`)."""

    assigned: dict[str, JSON] | None  # what the state's Assign evaluated to, bound when it exits
    state_name: str  # the state running, named by the payload quota's cause

    def inspect(self, step: str, value: JSON) -> None:
        """Report a data-flow step (TestState's inspection data); nothing otherwise."""
        ...


def assign(expression: Expression | None, value: JSON, run: StateRun) -> None:
    """Evaluate an Assign now (on the state's result, or `$states` in JSONata); it is bound on exit."""
    if expression is not None:
        run.assigned = expression.evaluate(value, run)


def evaluate_path(path: Any, value: JSON, scope: ExpressionScope) -> JSON:
    """InputPath / OutputPath / ItemsPath: None (JSON null in the definition) gives {}."""
    if path is None:
        return {}
    try:
        return path.evaluate(value, scope)
    except LookupError as missing:  # PathNotFound and friends
        raise StatesError(names.RUNTIME, invalid_path(path.text, getattr(missing, "reason", None) or str(missing),
                                                      value)) from None


class JsonPathIO(Struct, frozen=True):
    """InputPath, Parameters, ResultSelector, ResultPath, OutputPath (and a Map's ItemsPath).
    `input_path`/`output_path`/`result_path` None means JSON null in the definition."""

    input_path: Expression | None = None
    output_path: Expression | None = None
    parameters: Expression | None = None
    result_selector: Expression | None = None
    result_path: ResultPath | None = None
    items_path: Any = None  # a Map's ItemsPath (a reference path), None when absent

    def state_input(self, raw: JSON, run: StateRun) -> JSON:
        """The value the state's fields read: the input, narrowed by InputPath."""
        value = evaluate_path(self.input_path, raw, run)
        run.inspect("afterInputPath", value)
        return value

    def unprocessed_input(self, raw: JSON) -> JSON:
        """The value a state without InputPath (Fail) reads its fields from."""
        return raw

    def arguments(self, value: JSON, raw: JSON, run: StateRun) -> JSON:
        """A Task's or Parallel's request: Parameters on the state input (the input without them)."""
        if self.parameters is not None:
            value = self.parameters.evaluate(value, run)
            # AWS: "after Parameters processing, the input of a state is larger" than the quota fails
            within_payload_limit(value, run.state_name, overflow=PROVIDED_PARAMETERS)
            run.inspect("afterParameters", value)
        return value

    def output(self, raw: JSON, value: JSON, run: StateRun) -> JSON:
        """The output of a state without a result (Choice's Default, Succeed, Wait): OutputPath on its input."""
        return evaluate_path(self.output_path, value, run)

    def choice_output(self, raw: JSON, value: JSON, rule: ChoiceBranch, run: StateRun) -> JSON:
        """A Choice state's output when `rule` matched: OutputPath on its input (a JSONPath rule has no Output)."""
        return evaluate_path(self.output_path, value, run)

    def pass_output(self, raw: JSON, value: JSON, result: Constant | None, assignment: Expression | None,
                    run: StateRun) -> JSON:
        """A Pass state's output: its Assign reads the result (Result, or Parameters on the input),
        then ResultPath and OutputPath."""
        produced = result.value if result is not None else self.arguments(value, raw, run)
        assign(assignment, produced, run)
        return evaluate_path(self.output_path, self._placed(raw, produced, run), run)

    def result_output(self, raw: JSON, result: JSON, assignment: Expression | None, run: StateRun) -> JSON:
        """A Task's, Parallel's or Map's output: its Assign reads the result, then ResultSelector,
        ResultPath and OutputPath. TestState reports the selection even without a ResultSelector."""
        assign(assignment, result, run)
        run.inspect("result", result)
        selected = result
        if self.result_selector is not None:
            selected = self.result_selector.evaluate(result, run)
            within_payload_limit(selected, run.state_name)  # an intermediate result answers to the quota
        run.inspect("afterResultSelector", selected)
        return evaluate_path(self.output_path, self._placed(raw, selected, run), run)

    def caught_output(self, raw: JSON, caught: JSON, catcher: Catcher, run: StateRun) -> JSON:
        """The output when `catcher` caught an error (`caught` is {"Error", "Cause"}): the catcher's
        Assign reads it, its ResultPath places it in the state input."""
        assign(catcher.assign, caught, run)
        return catcher.result_path.apply(raw, caught) if catcher.result_path else raw

    def items(self, value: JSON, run: StateRun) -> list[JSON]:
        """A Map's items: what ItemsPath selects in the state input (the input itself without one)."""
        items = value
        if self.items_path is not None:
            items = evaluate_path(self.items_path, value, run)
        if not isinstance(items, list):
            # AWS (recorded through TestState) names the path from its root: `$$.Execution.Input` as `$.Execution.Input`
            text = self.items_path.text if self.items_path is not None else "$"
            path = text[1:] if text.startswith("$$") else text
            raise StatesError(names.RUNTIME, f'Reference path "{path}" must point to array.')
        if self.items_path is not None:
            run.inspect("afterItemsPath", items)  # only items are reported (TestState, recorded)
        return items

    def _placed(self, raw: JSON, result: JSON, run: StateRun) -> JSON:
        output = raw if self.result_path is None else self.result_path.apply(raw, result)
        run.inspect("afterResultPath", output)
        return output


class JsonataIO(Struct, frozen=True):
    """Arguments and Output (and a Map's Items), all reading `$states`."""

    arguments_template: Expression | None = None  # `Arguments`
    output_template: Expression | None = None  # `Output`
    items_expression: Expression | None = None  # a Map's `Items`

    def state_input(self, raw: JSON, run: StateRun) -> JSON:
        """The value the state's fields read: `$states` with the input."""
        return {"input": raw}

    def unprocessed_input(self, raw: JSON) -> JSON:
        return {"input": raw}

    def arguments(self, value: JSON, raw: JSON, run: StateRun) -> JSON:
        """A Task's or Parallel's request: Arguments (the state input without them)."""
        request = raw
        if self.arguments_template is not None:
            request = self.arguments_template.evaluate(value, run)
            within_payload_limit(request, run.state_name, overflow=PROVIDED_PARAMETERS)  # as Parameters
            run.inspect("afterArguments", request)  # as afterParameters: only where there are Arguments
        return request

    def output(self, raw: JSON, value: JSON, run: StateRun) -> JSON:
        """The output of a state without a result: Output, else the state input."""
        return self.output_template.evaluate(value, run) if self.output_template is not None else raw

    def choice_output(self, raw: JSON, value: JSON, rule: ChoiceBranch, run: StateRun) -> JSON:
        """A Choice state's output when `rule` matched: the rule's Output (not the state's), else the input."""
        return rule.output.evaluate(value, run) if rule.output is not None else raw

    def pass_output(self, raw: JSON, value: JSON, result: Constant | None, assignment: Expression | None,
                    run: StateRun) -> JSON:
        """A Pass state's output: Assign and Output read `$states` (a JSONata Pass has no result)."""
        assign(assignment, value, run)
        return self.output_template.evaluate(value, run) if self.output_template is not None else raw

    def result_output(self, raw: JSON, result: JSON, assignment: Expression | None, run: StateRun) -> JSON:
        """A Task's, Parallel's or Map's output: Assign and Output read `$states.result`; the output is
        the result without an Output."""
        run.inspect("result", result)
        states = {"input": raw, "result": result}
        assign(assignment, states, run)
        return self.output_template.evaluate(states, run) if self.output_template is not None else result

    def caught_output(self, raw: JSON, caught: JSON, catcher: Catcher, run: StateRun) -> JSON:
        """The output when `catcher` caught an error: the catcher's Assign and Output read
        `$states.errorOutput`; the output is the error output without an Output."""
        states = {"input": raw, "errorOutput": caught}
        assign(catcher.assign, states, run)
        return catcher.output.evaluate(states, run) if catcher.output is not None else caught

    def items(self, value: JSON, run: StateRun) -> list[JSON]:
        """A Map's items: what Items gives (the state input without it), an array."""
        items = self.items_expression.evaluate(value, run) if self.items_expression is not None else value["input"]
        if not isinstance(items, list):
            raise QueryEvaluationError(f"Map state input must be an array but was: {compact_json(items)}", "Items")
        return items


StateIO = JsonPathIO | JsonataIO


def state_io(
    query_language: str,
    *,
    input_path: Expression | None = None,
    output_path: Expression | None = None,
    output: Expression | None = None,
    parameters: Expression | None = None,
    result_selector: Expression | None = None,
    result_path: ResultPath | None = None,
    items_path: Any = None,
    items: Expression | None = None,
) -> StateIO:
    """The input/output processing of a state in `query_language`, from its fields (those of the other
    language are refused by the parser, so they are None here; JSONata's `Arguments` come as
    `parameters`)."""
    if query_language == JSONATA:
        return JsonataIO(arguments_template=parameters, output_template=output, items_expression=items)
    return JsonPathIO(input_path=input_path, output_path=output_path, parameters=parameters,
                      result_selector=result_selector, result_path=result_path, items_path=items_path)


IO_FIELDS = ("input_path", "output_path", "output", "parameters", "result_selector", "result_path", "items_path", "items")


def joined(constructor: Callable[..., Any]) -> Callable[..., Any]:
    """A state type's constructor taking its input/output fields among the others: they become its `io`
    (a `JsonPathIO` or a `JsonataIO`, by the state's query language)."""
    def build(**fields: Any) -> Any:
        io_fields = {key: fields.pop(key) for key in IO_FIELDS if key in fields}
        return constructor(**fields, io=state_io(fields["query_language"], **io_fields))
    return build
