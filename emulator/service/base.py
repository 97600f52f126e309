"""What every group of operations shares: the engine, the clock, one store per (account, region),
one lock, and the look-ups that turn ARNs into records with AWS's not-found errors."""

from __future__ import annotations

import contextlib
import functools
import random
import threading
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Iterator, TypeVar

from emulator.service import arns
from emulator.service.errors import StateMachineDeleting, StateMachineDoesNotExist
from emulator.service.store import DELETING, StateMachineRecord, Store, Version

if TYPE_CHECKING:
    from emulator.engine import Engine

F = TypeVar("F", bound=Callable[..., Any])


class ServiceBase:
    def __init__(
        self,
        engine: Engine,
        *,
        default_account: str = "123456789012",
        default_region: str = "us-east-1",
        seed: int = 0,
    ) -> None:
        self.engine = engine
        self.default_account = default_account
        self.default_region = default_region
        self._stores: dict[tuple[str, str], Store] = {}
        self._lock = threading.RLock()
        # Alias routing picks versions at random by weight; seeded, so runs are reproducible.
        self._random = random.Random(seed)

    def _now(self) -> datetime:
        return self.engine.clock.now()

    @contextlib.contextmanager
    def _locked(self, store: Store) -> Iterator[Store]:
        """Hold the service lock for work on `store` (first removing finished deletions)."""
        with self._lock:
            store.finish_deletions()
            yield store

    def _store(self, account: str | None, region: str | None) -> Store:
        key = (account or self.default_account, region or self.default_region)
        store = self._stores.get(key)
        if store is None:
            store = self._stores[key] = Store(*key)
        return store

    @staticmethod
    def _machine(store: Store, ref: arns.MachineRef) -> StateMachineRecord:
        """The state machine `ref` names (its qualifier ignored); StateMachineDoesNotExist if none."""
        record = store.state_machines.get(ref.base_arn)
        if record is None:
            raise StateMachineDoesNotExist(f"State Machine Does Not Exist: '{ref.arn}'")
        return record

    @classmethod
    def _unqualified_machine(cls, store: Store, ref: arns.MachineRef) -> StateMachineRecord:
        """For operations on the state machine itself: a version or alias ARN names none (AWS)."""
        if ref.qualified:
            raise StateMachineDoesNotExist(f"State Machine Does Not Exist: '{ref.arn}'")
        return cls._machine(store, ref)

    @staticmethod
    def _refuse_deleting(record: StateMachineRecord) -> None:
        """Operations that would change or run a state machine being deleted are refused."""
        if record.status == DELETING:
            raise StateMachineDeleting(f"State Machine Is Being Deleted: '{record.arn}'")

    @classmethod
    def _version(cls, store: Store, ref: arns.MachineRef) -> tuple[StateMachineRecord, Version]:
        record = cls._machine(store, ref)
        version = record.versions.get(ref.version) if ref.version is not None else None
        if version is None:
            raise StateMachineDoesNotExist(f"State Machine Does Not Exist: '{ref.arn}'")
        return record, version


def operation(method: F) -> F:
    """Run an operation under the service lock on the caller's store.

    The decorated method receives the `Store` first; callers pass the operation's parameters by
    their botocore names plus optional `account=` and `region=` (default: the service's).
    """

    @functools.wraps(method)
    def run(self: ServiceBase, *, account: str | None = None, region: str | None = None, **params: Any) -> Any:
        with self._lock:
            store = self._store(account, region)
        with self._locked(store):
            return method(self, store, **params)

    return run  # type: ignore[return-value]


def unlocked_operation(method: F) -> F:
    """Like `operation`, for operations that call into the engine or wait (long polls, synchronous
    executions, task tokens): the method takes `self._locked(store)` around its store work only, so
    the service lock is never held while the engine works (the engine may call back into us)."""

    @functools.wraps(method)
    def run(self: ServiceBase, *, account: str | None = None, region: str | None = None, **params: Any) -> Any:
        with self._lock:
            store = self._store(account, region)
        return method(self, store, **params)

    return run  # type: ignore[return-value]
