"""What StartExecution asks of the mock configuration, which the runtime owns and may replace."""

from __future__ import annotations

from typing import Any, Protocol


class MockCases(Protocol):
    def loaded(self) -> bool:
        """Whether one is loaded: without one, an execution started with `stateMachineArn#CASE` is
        refused rather than silently run unmocked."""
        ...

    def start_problem(self, machine: str, case: str, definition: Any) -> str | None:
        """Why test case `case` cannot run `machine` (a state it mocks is missing, ...), or None."""
        ...


class NoMockConfig:
    """The control plane on its own: any test case starts, unmocked."""

    def loaded(self) -> bool:
        return True

    def start_problem(self, machine: str, case: str, definition: Any) -> str | None:
        return None
