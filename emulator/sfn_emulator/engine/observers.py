"""What the engine tells those who follow it: the one interface for the control plane, persistence,
coverage, the local EventBridge and the server log to hear of executions.

An observer implements `EngineObserver`; every event has a default that does nothing, so an
observer subclasses it and overrides only what it needs. Observers are given to the engine by
constructor, or registered once with `Engine.observe` by whoever composes the parts (the runtime,
or the control plane over the engine it is given). They are told on the engine thread, in the
order they were given; one that raises is logged and the others are still told, so no observer's
bug stops the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, Callable, Protocol

from sfn_emulator.engine.execution import Execution, MapRun

log = logging.getLogger(__name__)


class EngineObserver(Protocol):
    """The engine's events (subclass it: each defaults to doing nothing)."""

    def execution_started(self, execution: Execution) -> None:
        """`execution` begins to run, or runs again (a redrive)."""

    def execution_finished(self, execution: Execution) -> None:
        """`execution` has closed: succeeded, failed, timed out or aborted."""

    def map_run_began(self, map_run: MapRun) -> None:
        """A Distributed Map run begins."""

    def map_run_child_started(self, child: Execution, map_run: MapRun) -> None:
        """One of a Distributed Map run's child executions starts."""

    def round_ended(self) -> None:
        """A round of commands, timers and turns is over: what it changed may be written together."""


_EVENTS = ("execution_started", "execution_finished", "map_run_began", "map_run_child_started", "round_ended")


class Observers(EngineObserver):
    """The engine's observers as one: tells each observer that overrides an event, in order, and
    keeps one's failure from the others (and from the engine)."""

    def __init__(self, observers: Iterable[EngineObserver] = ()) -> None:
        self._told: dict[str, tuple[Callable[..., None], ...]] = {event: () for event in _EVENTS}
        for observer in observers:
            self.add(observer)

    def add(self, observer: EngineObserver) -> None:
        for event in _EVENTS:
            own = getattr(type(observer), event, None)
            if own is not None and own is not getattr(EngineObserver, event):
                self._told[event] += (getattr(observer, event),)

    def listens_to_rounds(self) -> bool:
        """Does anyone want `round_ended`? (The engine's loop skips it otherwise.)"""
        return bool(self._told["round_ended"])

    def _tell(self, event: str, *subjects: Any) -> None:
        for told in self._told[event]:
            try:
                told(*subjects)
            except Exception:  # an observer's bug must not stop the engine
                log.exception("engine observer failed on %s", event)

    def execution_started(self, execution: Execution) -> None:
        self._tell("execution_started", execution)

    def execution_finished(self, execution: Execution) -> None:
        self._tell("execution_finished", execution)

    def map_run_began(self, map_run: MapRun) -> None:
        self._tell("map_run_began", map_run)

    def map_run_child_started(self, child: Execution, map_run: MapRun) -> None:
        self._tell("map_run_child_started", child, map_run)

    def round_ended(self) -> None:
        self._tell("round_ended")
