"""`sfn-emulator run` answering the task tokens its execution waits for.

In `run` nobody else holds the token a `.waitForTaskToken` task hands out, so the command answers
it: from `--send-task-success STATE=JSON` / `--send-task-failure STATE=ERROR:CAUSE` (each answers one
wait of that state, in the order given), or by asking on a terminal. A wait nothing answers is
named at once, with the flags that would answer it, and waited for until `--timeout`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict, deque
from typing import TYPE_CHECKING, Any, Callable, Protocol

from msgspec import Struct

from sfn_emulator.clock.virtual_clock import wall_monotonic

if TYPE_CHECKING:
    from sfn_emulator.api import ExecutionRunner
    from sfn_emulator.results.execution_result import ExecutionResult

_POLL_INTERVAL = 0.05  # wall seconds between looks at an execution nothing here can move
_SETTLE = 5.0  # wall seconds the engine gets to run until idle, even at --timeout 0 or after an answer


class TaskAnswer(Struct, frozen=True):
    """SendTaskSuccess with `output` (JSON text), or SendTaskFailure with `error` and `cause`."""

    state: str
    output: str | None = None
    error: str | None = None
    cause: str | None = None

    def describe(self) -> str:
        if self.output is not None:
            return f"SendTaskSuccess {self.output}"
        return f"SendTaskFailure {self.error}" + (f": {self.cause}" if self.cause else "")


def success_answer(text: str) -> TaskAnswer:
    """`--send-task-success STATE=JSON`."""
    state, output = _split_state(text, "STATE=JSON")
    try:
        json.loads(output)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"the output for state {state!r} is not JSON: {error}") from None
    return TaskAnswer(state, output=output)


def failure_answer(text: str) -> TaskAnswer:
    """`--send-task-failure STATE=ERROR:CAUSE` (the cause may be left out: STATE=ERROR)."""
    state, rest = _split_state(text, "STATE=ERROR:CAUSE")
    error, _, cause = rest.partition(":")
    return TaskAnswer(state, error=error, cause=cause or None)


def _split_state(text: str, form: str) -> tuple[str, str]:
    state, equals, value = text.partition("=")
    if not equals or not state:
        raise argparse.ArgumentTypeError(f"expected {form}, got {text!r}")
    return state, value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--send-task-success", dest="task_answers", action="append", type=success_answer,
                        default=[], metavar="STATE=JSON",
                        help="answer the task token state STATE waits for with SendTaskSuccess and this "
                             "output (repeat for each wait, in order)")
    parser.add_argument("--send-task-failure", dest="task_answers", action="append", type=failure_answer,
                        metavar="STATE=ERROR:CAUSE",
                        help="answer the task token state STATE waits for with SendTaskFailure (repeatable)")


class TaskTokenApi(Protocol):
    def send_task_success(self, **params: Any) -> Any: ...

    def send_task_failure(self, **params: Any) -> Any: ...


Prompt = Callable[[str], "TaskAnswer | None"]


def prompt_on_terminal(state: str) -> TaskAnswer | None:
    """Ask on the terminal how to answer the token state `state` waits for (empty: do not answer)."""
    text = input(f"State {state!r} waits for a task token. Output JSON for SendTaskSuccess, "
                 "or !ERROR:CAUSE for SendTaskFailure (empty: keep waiting): ").strip()
    if not text:
        return None
    if text.startswith("!"):
        return failure_answer(f"{state}={text[1:]}")
    try:
        return success_answer(f"{state}={text}")
    except argparse.ArgumentTypeError as error:
        print(f"sfn-emulator: {error}", file=sys.stderr)
        return prompt_on_terminal(state)


def wait_answering(runner: ExecutionRunner, api: TaskTokenApi, execution_arn: str, answers: list[TaskAnswer], *,
                   timeout: float, real_clock: bool, prompt: Prompt | None) -> ExecutionResult:
    """The execution once it has ended, answering its token waits, or as it stands after `timeout`
    wall seconds."""
    from sfn_emulator.results.execution_result import RUNNING  # (the Python API: only when a command runs a definition)
    from sfn_emulator.service.errors import ApiError

    queued: dict[str, deque[TaskAnswer]] = defaultdict(deque)
    for answer in answers:
        queued[answer.state].append(answer)
    deadline = wall_monotonic() + timeout
    answered: set[str] = set()
    hinted: set[str] = set()
    while True:
        remaining = max(0.0, deadline - wall_monotonic())
        # However short the timeout, the engine first gets to run until it is idle (bounded), so a
        # token wait is seen as soon as the execution reaches it.
        settle = max(remaining, _SETTLE)
        result = runner.result(execution_arn) if real_clock else runner.wait(execution_arn, timeout=settle)
        if result.status != RUNNING:
            return result
        moved = False
        for state, token in result.token_waits.items():
            if token in answered:
                continue
            answer = queued[state].popleft() if queued[state] else (prompt(state) if prompt else None)
            if answer is None:
                if state not in hinted:
                    hinted.add(state)
                    print(waiting_hint(state, timeout), file=sys.stderr, flush=True)
                continue
            answered.add(token)
            moved = True
            print(f"sfn-emulator: state {state!r} waits for a task token; {answer.describe()}", file=sys.stderr)
            try:
                if answer.output is not None:
                    api.send_task_success(taskToken=token, output=answer.output)
                else:
                    api.send_task_failure(taskToken=token, **_failure_fields(answer))
            except ApiError as error:
                print(f"sfn-emulator: {error.code}: {error.message}", file=sys.stderr)
        if wall_monotonic() >= deadline and not moved:  # past it, an answer just sent is still seen through
            return result
        if not moved:
            time.sleep(min(_POLL_INTERVAL, remaining))


def waiting_hint(state: str, timeout: float) -> str:
    return (f"sfn-emulator: state {state!r} waits for a task token; answer it with "
            f"--send-task-success '{state}=JSON' or --send-task-failure '{state}=ERROR:CAUSE' "
            f"(waiting up to --timeout {timeout:g} s)")


def _failure_fields(answer: TaskAnswer) -> dict[str, str]:
    fields = {"error": answer.error} if answer.error else {}
    if answer.cause is not None:
        fields["cause"] = answer.cause
    return fields
