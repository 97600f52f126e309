"""Replaying a recorded history against a definition, in an emulator of its own whose clock starts
at the recording's start time, and comparing what happened (see the package docstring)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from msgspec import Struct

from sfn_emulator.protocol.errors import ApiError
from sfn_emulator.process.randomness import Randomness
from sfn_emulator.protocol.history_events import EXECUTION_END_STATUS
from sfn_emulator.replay.answers import RecordedAnswers
from sfn_emulator.replay.comparison import Divergence, StepComparison, compare
from sfn_emulator.replay.recording import Recording, read_recording
from sfn_emulator.resources.base import TaskResource

JSON = Any
MACHINE_NAME = "Replay"
_HISTORY_PAGE = 1000
DIVERGED = "SfnEmulator.ReplayDiverged"


class ReplayError(ValueError):
    """A replay that cannot run: a bad history or definition (the CLI's exit status 2)."""


class ReplayHost(Protocol):
    """What a replay needs of the emulator it runs in (a fresh one: `sfn_emulator.Emulator`)."""

    service: Any
    clock: Any
    coverage: Any
    mocks: TaskResource | None
    functions: TaskResource

    def answer_tasks_with(self, answers: TaskResource | None) -> None:
        """Have `answers` answer Tasks before every other resource (`Emulator.answer_tasks_with`)."""


class RedriveCheck(Struct, frozen=True):
    """Whether RedriveExecution accepted the replayed execution, and how the redrive ended."""

    accepted: bool
    error: str | None = None  # the API error's code when refused
    message: str | None = None
    status: str | None = None
    output: JSON = None
    cause: str | None = None
    recorded_status: str | None = None  # how the recording's own redrive ended, when it was redriven

    def to_json(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in self.__struct_fields__ if getattr(self, key) is not None}


class ReplayResult(Struct, frozen=True):
    """How a replay went: `matched` (same path, same outputs), the first `divergence`, the replayed
    execution (`execution_arn`, `status`, `history`), its workflow `coverage`, every step compared."""

    matched: bool
    divergence: Divergence | None
    execution_arn: str
    status: str
    recorded_status: str
    history: list[dict[str, Any]]
    comparisons: list[StepComparison]
    coverage: dict[str, Any]
    unanswered: list[str]
    redrive: RedriveCheck | None = None

    def explain(self) -> str:
        """A few lines for a person: matched, or the first divergence with its JSON differences."""
        if self.divergence is None:
            return f"replay matched the recording: {self.status}, {len(self.comparisons)} steps compared"
        divergence = self.divergence
        lines = [f"replay diverged from the recording at event {divergence.event_id}"
                 + (f" (state {divergence.state!r})" if divergence.state else ""), f"  {divergence.message}"]
        if divergence.kind != "path" and not divergence.diff:
            lines.append(f"  recorded: {json.dumps(divergence.recorded)}\n  replayed: {json.dumps(divergence.replayed)}")
        lines += [f"  {reason}" for reason in self.unanswered[:1]]
        lines.append(f"  replayed execution {self.execution_arn}: {self.status} (recorded: {self.recorded_status})")
        return "\n".join(lines)

    def assert_matched(self) -> ReplayResult:
        """Fail the test unless the replay took the recording's path with the same outputs; the message
        shows the first divergence, its changed, missing and extra fields by JSON path."""
        __tracebackhide__ = True
        if not self.matched:
            raise AssertionError(self.explain())
        return self

    def report(self) -> dict[str, Any]:
        """The whole comparison as JSON (`--report`): a top-level `divergence` when it diverged."""
        report: dict[str, Any] = {
            "matched": self.matched, "executionArn": self.execution_arn, "status": self.status,
            "recordedStatus": self.recorded_status, "steps": [step.to_json() for step in self.comparisons],
            "unanswered": self.unanswered, "coverage": self.coverage,
        }
        if self.divergence is not None:
            report["divergence"] = self.divergence.to_json()
        if self.redrive is not None:
            report["redrive"] = self.redrive.to_json()
        return report


class ReplayOptions(Struct, frozen=True):
    test_case: str | None = None  # answer what the recording lacks from this mock test case
    until_divergence: bool = False  # stop the replayed execution at the first divergence
    check_redrive: bool = False  # after the replay, redrive it when the recording FAILED, TIMED_OUT or ABORTED
    timeout: float = 60.0  # wall seconds to let the replay run


def replay(host: ReplayHost, events: Sequence[Mapping[str, Any]], definition: str, input: JSON = None,
           options: ReplayOptions = ReplayOptions(), *, ids: Randomness | None = None) -> ReplayResult:
    """Run `definition` (JSON text) on `input` (default: the recording's) in `host` with the answers of
    the checked history `events`, and compare."""
    recording = read_recording(events)
    try:
        parsed = json.loads(definition)
    except ValueError as exc:
        raise ReplayError(f"the definition is not JSON: {exc}") from None
    _check_same_machine(recording, parsed)
    try:
        machine_arn = host.service.create_state_machine(
            name=MACHINE_NAME, definition=definition, roleArn=recording.role_arn or _role(host))["stateMachineArn"]
    except ApiError as exc:
        raise ReplayError(f"the definition cannot run: {exc.message}") from None
    name = f"replay-{(ids or Randomness(definition)).uuid()}"
    execution_arn = f"{machine_arn.replace(':stateMachine:', ':execution:')}:{name}"
    fallbacks = [resource for resource in (host.mocks if options.test_case else None, host.functions) if resource]
    answers = RecordedAnswers(recording.answers, parsed, MACHINE_NAME, fallbacks=fallbacks,
                              stop_at_divergence=_stopper(host, execution_arn) if options.until_divergence else None)
    host.answer_tasks_with(answers)
    target = f"{machine_arn}#{options.test_case}" if options.test_case else machine_arn
    text_input = json.dumps(recording.input if input is None else input)
    try:
        host.service.start_execution(stateMachineArn=target, name=name, input=text_input)
    except ApiError as exc:
        raise ReplayError(f"the replay cannot start: {exc.message}") from None
    host.clock.mode = "auto"  # it stood still while the replay started, at the recording's start time
    status = _settle(host, execution_arn, options.timeout)
    if status == "RUNNING":  # waits for something no recording answers: end it where it stands
        _stopper(host, execution_arn)(f"the replay did not end within {options.timeout:g} seconds")
        status = _settle(host, execution_arn, options.timeout)
    history = _history(host, execution_arn)
    own = answers.task_tokens | {execution_arn, machine_arn, name, MACHINE_NAME}
    comparisons, divergence = compare(recording.steps, read_recording(history).steps, own)
    if options.until_divergence and divergence is not None:
        comparisons = [step for step in comparisons if _before(step, divergence)]
    redrive = _check_redrive(host, execution_arn, recording, options.timeout) if options.check_redrive else None
    return ReplayResult(divergence is None, divergence, execution_arn, status, EXECUTION_END_STATUS[recording.end["type"]],
                        history, comparisons, host.coverage.json(), list(answers.unanswered), redrive)


def _role(host: ReplayHost) -> str:
    return f"arn:aws:iam::{host.service.default_account}:role/replay"


def _stopper(host: ReplayHost, execution_arn: str) -> Callable[[str], None]:
    def stop(cause: str) -> None:
        try:
            host.service.stop_execution(executionArn=execution_arn, error=DIVERGED, cause=cause[:32768])
        except ApiError:
            pass  # it has ended already
    return stop


def _settle(host: ReplayHost, execution_arn: str, timeout: float) -> str:
    """Let the replay run until nothing moves by itself; its status then."""
    host.clock.run_until_idle(timeout)
    return str(host.service.describe_execution(executionArn=execution_arn)["status"])


def _history(host: ReplayHost, execution_arn: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    token = None
    while True:
        page = host.service.get_execution_history(executionArn=execution_arn, maxResults=_HISTORY_PAGE,
                                                  **({"nextToken": token} if token else {}))
        events += [dict(event) for event in page["events"]]
        token = page.get("nextToken")
        if not token:
            return events


def _check_redrive(host: ReplayHost, execution_arn: str, recording: Recording, timeout: float) -> RedriveCheck:
    """RedriveExecution of the replayed execution, by the service's (AWS's) rules, and the redrive's end."""
    recorded = EXECUTION_END_STATUS[recording.end["type"]]
    redriven = EXECUTION_END_STATUS[recording.redrive_end["type"]] if recording.redrive_end is not None else None
    if recorded == "SUCCEEDED":
        return RedriveCheck(False, "ExecutionNotRedrivable",
                            "the recording SUCCEEDED: only FAILED, TIMED_OUT or ABORTED executions can be redriven")
    try:
        host.service.redrive_execution(executionArn=execution_arn)
    except ApiError as exc:
        return RedriveCheck(False, exc.code or type(exc).__name__, exc.message, recorded_status=redriven)
    status = _settle(host, execution_arn, timeout)
    description = host.service.describe_execution(executionArn=execution_arn)
    output = description.get("output")
    return RedriveCheck(True, status=status, output=json.loads(output) if output else None,
                        error=description.get("error"), cause=description.get("cause"), recorded_status=redriven)


def _before(step: StepComparison, divergence: Divergence) -> bool:
    """Is `step` at or before the divergence (what `--until-divergence` reports)?"""
    if step.recorded is not None:
        return step.recorded.event_id <= divergence.event_id
    return step.replayed is not None and step.replayed.event_id <= (divergence.replay_event_id or 0)


def _check_same_machine(recording: Recording, definition: JSON) -> None:
    """A history none of whose states the definition has is another machine's: nothing to compare."""
    entered = {step.state for steps in recording.steps.values() for step in steps if step.kind == "entered"}
    if entered and not entered & set(_state_names(definition)):
        raise ReplayError(f"the history is of another definition: none of the states it entered "
                          f"({', '.join(sorted(entered))}) is in the definition")


def _state_names(machine: JSON) -> list[str]:
    states = machine.get("States") if isinstance(machine, dict) else None
    names: list[str] = []
    for name, state in (states or {}).items():
        names.append(name)
        if isinstance(state, dict):
            for inner in [*(state.get("Branches") or []), state.get("ItemProcessor"), state.get("Iterator")]:
                names += _state_names(inner)
    return names
