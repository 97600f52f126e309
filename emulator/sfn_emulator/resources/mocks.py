"""Mocked Task responses as a task resource: `MockConfig` answers the Task states a test case of a
mock configuration file lists (the file's format and checks: `resources.mock_file`), counting each
state's invocations per execution, and re-reads the file when it changes.
"""

from __future__ import annotations

import difflib
import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from msgspec import Struct

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.outcomes import BoundCall, whole_task_call
from sfn_emulator.resources.mock_file import MockConfigError, MockDocument, dotted_location, read_mock_config

log = logging.getLogger(__name__)

JSON = Any


# -- the task resource ----------------------------------------------------------------------------

class _Loaded(Struct, frozen=True):
    """What the file held when last looked at: its identity on disk, and the document or the load error."""

    signature: tuple[int, int, int] | None  # (mtime ns, size, inode); None when the file could not be seen
    document: MockDocument | None
    error: str | None


class MockConfig:
    """A mock configuration file as a task resource; re-read when the file changes. Thread-safe."""

    def __init__(self, path: str | Path, document: MockDocument, signature: tuple[int, int, int] | None,
                 shown_as: str | None = None) -> None:
        self.path = Path(path)
        self.shown_as = shown_as or str(path)  # how messages name it: the user's file, or their dict
        self._loaded = _Loaded(signature, document, None)
        self._invocations: dict[str, dict[str, int]] = {}  # execution ARN -> state name -> invocations so far
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: str | Path, shown_as: str | None = None) -> MockConfig:
        """Load the file; raises `MockConfigError` when it cannot be used (a bad file must not start a server)."""
        signature = _signature(Path(path))
        return cls(path, read_mock_config(path, shown_as), signature, shown_as)

    # -- the TaskResource interface -----------------------------------------------------------
    def bind(self, request: TaskRequest) -> BoundCall | None:
        """The mocked answer, the whole task's result, when the execution runs under a test case that
        mocks this state, or that cannot be resolved (then the answer explains); None lets the state
        run for real."""
        if request.test_case is None:
            return None
        loaded = self._current()
        if loaded.document is not None:
            cases = loaded.document.state_machines.get(request.state_machine_name)
            states = cases.get(request.test_case) if cases is not None else None
            if states is not None and request.state_name not in states:
                return None
        return whole_task_call(request, lambda: self.answer(request))

    def answer(self, request: TaskRequest) -> JSON:
        """The mocked response to this invocation of the state (raises the mocked failure)."""
        loaded = self._current()
        if loaded.document is None:
            raise StatesError(names.RUNTIME, loaded.error)
        document = loaded.document
        machine, case, state = request.state_machine_name, request.test_case or "", request.state_name
        cases = document.state_machines.get(machine)
        if cases is None:
            raise self._runtime_error(f"the execution was started with the test case '{case}', "
                                      f"but StateMachines does not define the state machine '{machine}'")
        states = cases.get(case)
        if states is None:  # the file changed since the execution started
            raise self._runtime_error(_undefined_case(machine, case, cases))
        if state not in states:
            raise self._runtime_error(f"{dotted_location('StateMachines', machine, 'TestCases', case)} does not mock the "
                                      f"state '{state}' (the file changed while the task was starting)")
        response = document.responses[states[state]]
        invocation = self._next_invocation(request.execution_arn, state)
        outcome = response.at(invocation)
        if outcome is None:
            raise self._runtime_error(f"{dotted_location('MockedResponses', response.name)} defines no response for "
                                      f"invocation {invocation} of the state '{state}' ({response.coverage()})")
        return outcome.answer()

    def start_problem(self, machine: str, case: str, definition: Mapping[str, Any]) -> str | None:
        """Why an execution of the state machine `machine` (its `definition`) cannot start under the
        test case `case`: the case mocks states the machine has no Task state for, which would
        otherwise run for real unnoticed. None when it can start (what the file lacks altogether is
        reported when a Task runs, see the module docstring)."""
        loaded = self._current()
        cases = loaded.document.state_machines.get(machine) if loaded.document is not None else None
        if cases is None:
            return None
        states = cases.get(case)
        if states is None:  # a typo in the case's name would otherwise run every state for real
            return f"mock config {self.shown_as}: {_undefined_case(machine, case, cases)}"
        tasks = task_state_names(definition)
        unknown = [state for state in states if state not in tasks]
        if not unknown:
            return None
        listed = ", ".join(f"'{state}'" for state in unknown)
        return (f"mock config {self.shown_as}: {dotted_location('StateMachines', machine, 'TestCases', case)} mocks {listed}, "
                f"which the state machine '{machine}' has no Task state for; its Task states: "
                f"{', '.join(tasks) or '(none)'}")

    def forget_execution(self, execution_arn: str) -> None:
        """Drop an execution's invocation counts (call when it has ended)."""
        with self._lock:
            self._invocations.pop(execution_arn, None)

    # -- internals ------------------------------------------------------------------------------
    def _runtime_error(self, problem: str) -> StatesError:
        return StatesError(names.RUNTIME, f"mock config {self.shown_as}: {problem}")

    def _next_invocation(self, execution_arn: str, state_name: str) -> int:
        with self._lock:
            counts = self._invocations.setdefault(execution_arn, {})
            invocation = counts.get(state_name, 0)
            counts[state_name] = invocation + 1
            return invocation

    def _current(self) -> _Loaded:
        """The configuration as the file now holds it: one stat per call, a re-read only when it changed."""
        signature = _signature(self.path)
        with self._lock:
            if signature is not None and signature == self._loaded.signature:
                return self._loaded
            try:
                self._loaded = _Loaded(signature, read_mock_config(self.path, self.shown_as), None)
                log.info("reloaded the mock config %s", self.shown_as)
            except MockConfigError as exc:
                if self._loaded.error != str(exc):
                    log.error("%s (mocked executions fail until the file is fixed)", exc)
                self._loaded = _Loaded(signature, None, str(exc))
            return self._loaded


def task_state_names(definition: Mapping[str, Any]) -> list[str]:
    """The names of a definition's Task states, in Parallel branches and Map processors too."""
    names: list[str] = []
    for name, state in (definition.get("States") or {}).items():
        if not isinstance(state, Mapping):
            continue
        if state.get("Type") == "Task":
            names.append(name)
        for branch in state.get("Branches") or []:
            if isinstance(branch, Mapping):
                names += task_state_names(branch)
        for processor in (state.get("ItemProcessor"), state.get("Iterator")):
            if isinstance(processor, Mapping):
                names += task_state_names(processor)
    return names


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size, status.st_ino


def _undefined_case(machine: str, case: str, cases: Mapping[str, Any]) -> str:
    """What to say of a test case the file does not define for `machine`, with the nearest it does."""
    close = difflib.get_close_matches(case, list(cases), n=1)
    guess = f"; did you mean '{close[0]}'?" if close else ""
    return (f"the execution was started with the test case '{case}', but "
            f"{dotted_location('StateMachines', machine, 'TestCases')} does not define it "
            f"(it defines {', '.join(repr(name) for name in cases) or 'none'}){guess}")
