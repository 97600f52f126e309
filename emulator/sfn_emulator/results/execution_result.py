"""`ExecutionResult`: one execution as the Python API and the pytest plugin hand it back, built from
DescribeExecution and GetExecutionHistory answers, so it reads the same whether they came from the
in-process control plane or from boto3; with the assertions a test makes on it."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Mapping, Sequence

from msgspec import Struct

from sfn_emulator.protocol.history_events import STATE_ENTERED_DETAILS, STATE_EXITED_DETAILS, entered_state_type
from sfn_emulator.protocol.json_diff import describe_differences, json_equal
from sfn_emulator.results.history_tokens import open_token_waits, task_token

RUNNING = "RUNNING"
SUCCEEDED = "SUCCEEDED"
FAILED = "FAILED"

_NOT_GIVEN: Any = object()


class StateVisit(Struct, frozen=True):
    """One entry into a state, from its `*StateEntered` history event."""

    name: str
    type: str  # "Task", "Pass", "Map", ...
    input: Any  # the state's input, parsed
    entered: datetime


class ExecutionResult(Struct, frozen=True):
    """One execution as it stood when it was read: ended, or RUNNING when it was still waiting."""

    execution_arn: str
    status: str
    input: Any
    output: Any  # parsed; None unless SUCCEEDED
    error: str | None
    cause: str | None
    start_date: datetime
    stop_date: datetime | None
    history: tuple[dict[str, Any], ...]  # GetExecutionHistory's events; empty for EXPRESS executions
    definition: str | None = None  # the definition that ran (JSON text), for `graph`
    notes: tuple[str, ...] = ()  # what the reader of a failure should know (who holds the clock, ...)

    @classmethod
    def from_api(cls, description: Mapping[str, Any], events: Sequence[Mapping[str, Any]] = (),
                 definition: str | None = None) -> ExecutionResult:
        """From a DescribeExecution (or StartSyncExecution) answer, the execution's history events
        and the definition it ran."""
        output = description.get("output")
        return cls(
            execution_arn=description["executionArn"],
            status=description["status"],
            input=_parse(description.get("input")),
            output=_parse(output) if output is not None else None,
            error=description.get("error"),
            cause=description.get("cause"),
            start_date=description["startDate"],
            stop_date=description.get("stopDate"),
            history=tuple(dict(event) for event in events),
            definition=definition,
        )

    @property
    def succeeded(self) -> bool:
        return self.status == SUCCEEDED

    @property
    def visits(self) -> tuple[StateVisit, ...]:
        """Every entry into a state, in history order (states inside Parallel and Map included)."""
        return tuple(_visit(event) for event in self.history if STATE_ENTERED_DETAILS in event)

    @property
    def visited_states(self) -> list[str]:
        """The names of the states entered, in order, one per entry."""
        return [visit.name for visit in self.visits]

    @property
    def stopped_in(self) -> StateVisit | None:
        """The state the execution failed, timed out or was aborted in, or waits in if RUNNING: the
        last state entered and not exited. None when it succeeded (or has no history)."""
        if self.succeeded:
            return None
        open_visits: list[tuple[int, StateVisit]] = []
        for event in self.history:
            if STATE_ENTERED_DETAILS in event:
                open_visits.append((event["id"], _visit(event)))
            elif STATE_EXITED_DETAILS in event:
                name = event[STATE_EXITED_DETAILS]["name"]
                for index in range(len(open_visits) - 1, -1, -1):
                    if open_visits[index][1].name == name:
                        del open_visits[index]
                        break
        return open_visits[-1][1] if open_visits else None

    def graph(self, format: str = "mermaid", *, script_src: str | None = None) -> str:
        """The definition drawn with this execution's path on it (format mermaid, dot or html):
        states visited (with counts), the states it failed in, the edges it took. Read from the
        history alone: where several Choice rules lead to the same state, the first is shown.
        An html page shows the status, error and cause above the drawing; it carries Mermaid
        inline (5.5 MB) unless `script_src` names where to load it from (a copy beside the page)."""
        from sfn_emulator.dialects import graph_of
        from sfn_emulator.graphs import Overlay, render, trace
        from sfn_emulator.graphs.render import execution_summary

        if self.definition is None:
            raise ValueError("this result does not know the definition that ran")
        graph = graph_of(self.definition)
        path = trace(graph, self.history)
        overlay = Overlay(visited=dict(path.entered), failed=frozenset(path.failed_states), taken=frozenset(path.taken))
        return render(graph, format, overlay=overlay, title=self.execution_arn.rsplit(":", 2)[-2],
                      body=execution_summary(self.status, self.error, self.cause), script_src=script_src)

    def task_token(self, state_name: str) -> str:
        """The task token handed out by the latest task of state `state_name` (read from its
        TaskScheduled parameters), for SendTaskSuccess/SendTaskFailure. Raises `NoTaskToken`
        (a LookupError) saying what the history shows when there is none."""
        return task_token(self.history, state_name)

    @property
    def token_waits(self) -> dict[str, str]:
        """State name -> task token, for each task that waits for its token to be answered."""
        return open_token_waits(self.history)

    def explain(self) -> str:
        """A few lines on how the execution ended: where it stopped, with what input, and why."""
        lines = [f"execution {self.execution_arn}: {self.status}"]
        where = self.stopped_in
        if where is not None:
            verb = "waiting in" if self.status == RUNNING else "stopped in"
            lines.append(f"  {verb} state {where.name!r} ({where.type}) with input {_compact(where.input)}")
        if self.error is not None:
            lines.append(f"  error: {self.error}")
        if self.cause is not None:
            lines.append(f"  cause: {self.cause}")
        if self.succeeded:
            lines.append(f"  output: {_compact(self.output)}")
        lines += [f"  note: {note}" for note in self.notes]
        if self.history:
            from sfn_emulator.graphs.render import path_text  # the graph renderer only when an assertion fails

            failed = [where.name] if where is not None and self.status != RUNNING else []
            lines.append(f"  path: {path_text(self.visited_states, failed) or '(no state entered)'}")
        return "\n".join(lines)

    def assert_succeeded(self, output: Any = _NOT_GIVEN) -> ExecutionResult:
        """Fail the test unless the execution SUCCEEDED (with `output`, when given)."""
        __tracebackhide__ = True
        if not self.succeeded:
            raise AssertionError(f"expected the execution to succeed\n{self.explain()}")
        if output is not _NOT_GIVEN and not json_equal(self.output, output):
            raise AssertionError(
                f"the execution succeeded with another output than expected:\n"
                f"{describe_differences(self.output, output)}\n{self.explain()}"
            )
        return self

    def assert_output(self, expected: Any) -> ExecutionResult:
        """Fail the test unless the execution SUCCEEDED with output `expected` (a JSON value); the
        message lists the changed, missing and extra fields by JSON path."""
        __tracebackhide__ = True
        return self.assert_succeeded(output=expected)

    def assert_failed(self, error: str | None = None, cause: str | None = None) -> ExecutionResult:
        """Fail the test unless the execution FAILED (with this `error` and `cause`, when given)."""
        __tracebackhide__ = True
        expected = [f"error {error!r}"] if error is not None else []
        expected += [f"cause {cause!r}"] if cause is not None else []
        if (self.status != FAILED or (error is not None and self.error != error)
                or (cause is not None and self.cause != cause)):
            wanted = f" with {' and '.join(expected)}" if expected else ""
            raise AssertionError(f"expected the execution to fail{wanted}\n{self.explain()}")
        return self

    def assert_status(self, status: str) -> ExecutionResult:
        """Fail the test unless the execution has `status` (RUNNING, TIMED_OUT, ABORTED, ...)."""
        __tracebackhide__ = True
        if self.status != status:
            raise AssertionError(f"expected the execution to be {status}\n{self.explain()}")
        return self

    def __repr__(self) -> str:
        return (f"ExecutionResult(status={self.status!r}, error={self.error!r}, output={_compact(self.output)}, "
                f"visited_states={self.visited_states!r})")


def _visit(event: Mapping[str, Any]) -> StateVisit:
    details = event[STATE_ENTERED_DETAILS]
    return StateVisit(details["name"], entered_state_type(event["type"]) or "", _parse(details.get("input")),
                      event["timestamp"])


def _parse(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _compact(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 500 else text[:497] + "..."
