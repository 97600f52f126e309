"""What every operation component shares: one store per (account, region), the lock that guards
them, the clock's time, how long finished executions are kept, and who hears of changes.

Finished executions are kept for a retention period of clock time (AWS keeps a closed STANDARD
execution for 90 days); past it they are gone as if never started. They are purged lazily, when
looked up or listed: no thread watches the clock.
"""

from __future__ import annotations

import contextlib
import threading
from datetime import datetime, timedelta
from typing import Any, Callable, Iterator

from sfn_emulator.service.observers import ServiceObservers
from sfn_emulator.service.store import ExecutionEntry, Store

EXECUTION_RETENTION = timedelta(days=90)  # AWS's, for closed STANDARD executions

class Registry:
    """The stores of every (account, region) an operation has named, under one lock."""

    def __init__(self, now: Callable[[], datetime], *, default_account: str = "123456789012",
                 default_region: str = "us-east-1", execution_retention: timedelta | None = EXECUTION_RETENTION) -> None:
        self.now = now  # the clock's time: every date an answer carries
        self.default_account = default_account
        self.default_region = default_region
        self.execution_retention = execution_retention  # None: finished executions are kept forever
        self.lock = threading.RLock()
        self._stores: dict[tuple[str, str], Store] = {}
        self._prepared = threading.local()  # what a `prepared_operation`'s prepare step made, per calling thread
        self.observers = ServiceObservers()  # told of changes before the answer is sent (`service.observers`)

    # ------------------------------------------------------------------ stores

    def store(self, account: str | None, region: str | None) -> Store:
        """The store of (account, region), each defaulting to the service's; made if new."""
        key = (account or self.default_account, region or self.default_region)
        with self.lock:
            store = self._stores.get(key)
            if store is None:
                store = self._stores[key] = Store(*key)
            return store

    def existing_store(self, account: str, region: str) -> Store | None:
        """The store of (account, region) if one was made; read without the lock (for the engine's thread)."""
        return self._stores.get((account, region))

    def stores(self) -> list[Store]:
        with self.lock:
            return list(self._stores.values())

    def scopes(self) -> list[tuple[str, str]]:
        """Every (account, region) that has been used, sorted."""
        with self.lock:
            return sorted(self._stores)

    def install(self, stores: list[Store]) -> None:
        """Take loaded stores as the resources of their (account, region), replacing any there."""
        with self.lock:
            for store in stores:
                self._stores[(store.account, store.region)] = store

    def remove(self, account: str | None) -> list[Store]:
        """Forget the stores of `account` (every store when None) and answer them."""
        with self.lock:
            keys = [key for key in self._stores if account is None or key[0] == account]
            return [self._stores.pop(key) for key in keys]

    @contextlib.contextmanager
    def locked(self, store: Store) -> Iterator[Store]:
        """Hold the lock for work on `store` (first removing finished deletions)."""
        with self.lock:
            store.finish_deletions()
            yield store

    # ------------------------------------------------------------------ retention

    def _expired(self, entry: ExecutionEntry) -> bool:
        """Has this execution been finished for longer than the retention period?"""
        stop = entry.execution.stop_date
        return (self.execution_retention is not None and stop is not None and not entry.execution.is_running
                and self.now() - stop >= self.execution_retention)

    def retained(self, store: Store, execution_arn: str) -> ExecutionEntry | None:
        """The stored execution, or None if there is none or it has outlived the retention (then purged)."""
        entry = store.executions.get(execution_arn)
        if entry is not None and self._expired(entry):
            store.forget_execution(execution_arn)
            return None
        return entry

    def purge_expired(self, store: Store) -> None:
        """Forget every execution that has outlived the retention (before a listing)."""
        if self.execution_retention is None:
            return  # kept forever: nothing to look for
        for entry in [entry for entry in store.executions.values() if self._expired(entry)]:
            store.forget_execution(entry.execution.arn)

    # ------------------------------------------------------------------ the operation under way

    @contextlib.contextmanager
    def preparing(self, value: Any) -> Iterator[None]:
        """Keep what an operation's prepare step made for its method, on this thread, while it runs."""
        outer = self.prepared()
        self._prepared.value = value
        try:
            yield
        finally:
            self._prepared.value = outer

    def prepared(self) -> Any:
        """What the running `prepared_operation`'s prepare step returned on this thread (None: none)."""
        return getattr(self._prepared, "value", None)
