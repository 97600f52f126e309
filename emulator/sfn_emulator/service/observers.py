"""What the control plane tells those who follow its resources (persistence, the server log).

An observer implements `ServiceObserver`; each event defaults to doing nothing, so an observer
subclasses it and overrides only what it needs. Observers are registered once with
`StepFunctionsService.observe` by whoever composes the parts. Unlike the engine's observers (see
`sfn_emulator.engine.observers`), they are told on the API thread before the answer is sent, and
what they raise reaches the caller: an execution whose record cannot be kept is not started.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sfn_emulator.service.store import ExecutionEntry, Store


class ServiceObserver(Protocol):
    """The control plane's events (subclass it: each defaults to doing nothing)."""

    def changed(self, store: Store | None, action: str, params: dict[str, Any], result: Any) -> None:
        """An operation `action` (a botocore name) changed resources of `store`, with these request
        members and answer; `store` None, action "Reset" and params {"account": ...}: a reset."""

    def execution_filed(self, store: Store, entry: ExecutionEntry) -> None:
        """A STANDARD execution is filed in `store` but not yet running; raising stops its start."""


class ServiceObservers(ServiceObserver):
    """The control plane's observers as one, told in the order they were registered."""

    def __init__(self) -> None:
        self._observers: tuple[ServiceObserver, ...] = ()

    def add(self, observer: ServiceObserver) -> None:
        self._observers += (observer,)

    def __bool__(self) -> bool:
        """Is anyone told? (Operations skip building what nobody hears.)"""
        return bool(self._observers)

    def changed(self, store: Store | None, action: str, params: dict[str, Any], result: Any) -> None:
        for observer in self._observers:
            observer.changed(store, action, params, result)

    def execution_filed(self, store: Store, entry: ExecutionEntry) -> None:
        for observer in self._observers:
            observer.execution_filed(store, entry)
