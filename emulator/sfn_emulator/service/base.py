"""What every group of operations shares: the engine, the clock, one store per (account, region),
one lock, and the look-ups that turn ARNs into records with AWS's not-found errors.

Finished executions are kept for a retention period of clock time (AWS keeps a closed STANDARD
execution for 90 days); past it they are gone as if never started. They are purged lazily, when
looked up or listed: no thread watches the clock.
"""

from __future__ import annotations

import contextlib
import functools
import random
import threading
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol, TypeVar

from sfn_emulator.process.randomness import Randomness
from sfn_emulator.service import arns
from sfn_emulator.service.execution_logs import ExecutionLogs
from sfn_emulator.service.logging_configuration import LogGroups
from sfn_emulator.service.errors import ExecutionDoesNotExist, StateMachineDeleting, StateMachineDoesNotExist
from sfn_emulator.service.observers import ServiceObserver, ServiceObservers
from sfn_emulator.service.ownership import check_owned
from sfn_emulator.service.store import DELETING, ExecutionEntry, StateMachineRecord, Store, Version

if TYPE_CHECKING:
    from sfn_emulator.engine import Engine
    from sfn_emulator.engine.execution import Execution

F = TypeVar("F", bound=Callable[..., Any])

TEST_ENDED_CAUSE = "Stopped by sfn-emulator: the test that started it ended"
EXECUTION_RETENTION = timedelta(days=90)  # AWS's, for closed STANDARD executions
# Operations that change nothing a store keeps (GetActivityTask's effect is the engine's to record).
_READING = ("Describe", "List", "Get", "Validate", "Test")


class MockCases(Protocol):
    """What the control plane asks of the mock configuration, which the runtime owns and may replace."""

    def loaded(self) -> bool:
        """Whether one is loaded: without one, an execution started with `stateMachineArn#CASE` is
        refused rather than silently run unmocked."""
        ...

    def start_problem(self, machine: str, case: str, definition: Any) -> str | None:
        """Why test case `case` cannot run `machine` (a state it mocks is missing, ...), or None."""
        ...


class _NoMockConfig:
    """The control plane on its own: any test case starts, unmocked."""

    def loaded(self) -> bool:
        return True

    def start_problem(self, machine: str, case: str, definition: Any) -> str | None:
        return None


class ServiceBase:
    def __init__(
        self,
        engine: Engine,
        *,
        default_account: str = "123456789012",
        default_region: str = "us-east-1",
        seed: int = 0,
        execution_retention: timedelta | None = EXECUTION_RETENTION,
        mock_cases: MockCases | None = None,
        log_groups: LogGroups | None = None,
    ) -> None:
        self.engine = engine
        self.execution_logs = ExecutionLogs(log_groups)  # where executions log, by their machine's configuration
        engine.observe(self.execution_logs)
        self._mock_cases: MockCases = mock_cases if mock_cases is not None else _NoMockConfig()
        self.execution_retention = execution_retention  # None: finished executions are kept forever
        self.default_account = default_account
        self.default_region = default_region
        self._stores: dict[tuple[str, str], Store] = {}
        self._lock = threading.RLock()
        self._prepared = threading.local()  # what a `prepared_operation`'s prepare step made, per calling thread
        # Alias routing picks versions at random by weight; seeded, so runs are reproducible.
        self._random = random.Random(seed)
        self._ids = Randomness(f"{seed}:ids")  # execution names and ids, revision ids: from the seed too
        self._observers = ServiceObservers()  # told of changes before the answer is sent (`service.observers`)

    def observe(self, observer: ServiceObserver) -> None:
        """Tell `observer` of the control plane's changes from now on (for whoever composes the parts)."""
        self._observers.add(observer)

    def prepared(self) -> Any:
        """What the running `prepared_operation`'s prepare step returned on this thread (None: none)."""
        return getattr(self._prepared, "value", None)

    def _now(self) -> datetime:
        return self.engine.clock.now()

    def reset(self, account: str | None = None) -> None:
        """Forget every resource (of `account` only, when given): state machines, executions,
        activities. Running executions are aborted first, so nothing runs on for a forgotten record."""
        with self._lock:
            keys = [key for key in self._stores if account is None or key[0] == account]
            stores = [self._stores.pop(key) for key in keys]
        self._abort_running(stores, None)
        self._observers.changed(None, "Reset", {"account": account}, None)

    def stop_running(self, account: str, cause: str = TEST_ENDED_CAUSE) -> list[str]:
        """Abort every running execution of `account` (in every region), as StopExecution with
        `cause` would, and answer their ARNs: what a test left running in its own account stops
        with it (the pytest plugin's isolation), its resources stay for the reports."""
        with self._lock:
            stores = [store for key, store in self._stores.items() if key[0] == account]
        return self._abort_running(stores, cause)

    def _abort_running(self, stores: list[Store], cause: str | None) -> list[str]:
        running = [entry.execution for store in stores for entry in list(store.executions.values())
                   if entry.execution.is_running]
        if running:  # a map run's children already stopped with their parent are left alone
            self.engine.stop_together(running, None, cause)
        return [execution.arn for execution in running]

    @contextlib.contextmanager
    def _locked(self, store: Store) -> Iterator[Store]:
        """Hold the service lock for work on `store` (first removing finished deletions)."""
        with self._lock:
            store.finish_deletions()
            yield store

    def _expired(self, entry: ExecutionEntry) -> bool:
        """Has this execution been finished for longer than the retention period?"""
        stop = entry.execution.stop_date
        return (self.execution_retention is not None and stop is not None and not entry.execution.is_running
                and self._now() - stop >= self.execution_retention)

    def _retained(self, store: Store, execution_arn: str) -> ExecutionEntry | None:
        """The stored execution, or None if there is none or it has outlived the retention (then purged)."""
        entry = store.executions.get(execution_arn)
        if entry is not None and self._expired(entry):
            store.forget_execution(execution_arn)
            return None
        return entry

    def _purge_expired(self, store: Store) -> None:
        """Forget every execution that has outlived the retention (before a listing)."""
        if self.execution_retention is None:
            return  # kept forever: nothing to look for
        for entry in [entry for entry in store.executions.values() if self._expired(entry)]:
            store.forget_execution(entry.execution.arn)

    def _store(self, account: str | None, region: str | None) -> Store:
        key = (account or self.default_account, region or self.default_region)
        store = self._stores.get(key)
        if store is None:
            store = self._stores[key] = Store(*key)
        return store

    @property
    def lock(self) -> threading.RLock:
        """The service lock: hold it to read stores consistently from outside an operation."""
        return self._lock

    def store_of(self, account: str, region: str) -> Store:
        """The store of (account, region), made if new (persistence fills and reads stores through it)."""
        with self._lock:
            return self._store(account, region)

    def install(self, stores: list[Store]) -> None:
        """Take loaded stores as the resources of their (account, region), replacing any there."""
        with self._lock:
            for store in stores:
                self._stores[(store.account, store.region)] = store

    def stores(self) -> list[Store]:
        with self._lock:
            return list(self._stores.values())

    def scopes(self) -> list[tuple[str, str]]:
        """Every (account, region) that has been used, sorted (the console shows them all)."""
        with self._lock:
            return sorted(self._stores)

    def execution_record(self, execution_arn: str) -> Execution:
        """The execution `execution_arn` names, in the account and region of the ARN (for the
        emulator's own tools: graphs and the console); ExecutionDoesNotExist if there is none."""
        parsed = arns.execution(execution_arn)
        with self._lock:
            store = self._store(parsed.account, parsed.region)
        with self._locked(store):
            entry = self._retained(store, execution_arn)
        if entry is None:
            raise ExecutionDoesNotExist(f"Execution Does Not Exist: '{execution_arn}'")
        return entry.execution

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


def _action_name(method: Callable[..., Any]) -> str:
    """The API action of an operation method: `describe_state_machine` -> `DescribeStateMachine`."""
    return "".join(word.capitalize() for word in method.__name__.split("_"))


def operation(method: F) -> F:
    """Run an operation under the service lock on the caller's store, after refusing a request that
    names another account's resources (`ownership`).

    The decorated method receives the `Store` first; callers pass the operation's parameters by
    their botocore names plus optional `account=` and `region=` (default: the service's).
    """
    return _under_lock(method, None)


Prepare = Callable[["ServiceBase", Store, dict[str, Any]], Any]


def prepared_operation(prepare: Prepare) -> Callable[[F], F]:
    """Like `operation`, with `prepare(service, store, params)` run first without the lock: work a
    request needs that reads nothing shared (compiling its definition). Its refusals are kept in
    what it returns, which the method reads with `self.prepared()` (methods take exactly their
    operation's members)."""
    return lambda method: _under_lock(method, prepare)


def _under_lock(method: F, prepare: Prepare | None) -> F:
    action = _action_name(method)
    writes = not action.startswith(_READING)

    @functools.wraps(method)
    def run(self: ServiceBase, *, account: str | None = None, region: str | None = None, **params: Any) -> Any:
        with self._lock:
            store = self._store(account, region)
        check_owned(store.account, action, params)
        self._prepared.value = prepare(self, store, params) if prepare is not None else None
        try:
            with self._locked(store):
                result = method(self, store, **params)
                if writes and self._observers:
                    self._observers.changed(store, action, params, result)
                return result
        finally:
            self._prepared.value = None

    return run  # type: ignore[return-value]


def unlocked_operation(method: F) -> F:
    """Like `operation`, for operations that call into the engine or wait (long polls, synchronous
    executions, task tokens): the method takes `self._locked(store)` around its store work only, so
    the service lock is never held while the engine works (the engine may call back into us)."""

    action = _action_name(method)
    writes = not action.startswith(_READING)

    @functools.wraps(method)
    def run(self: ServiceBase, *, account: str | None = None, region: str | None = None, **params: Any) -> Any:
        with self._lock:
            store = self._store(account, region)
        check_owned(store.account, action, params)
        result = method(self, store, **params)
        if writes and self._observers:
            self._observers.changed(store, action, params, result)
        return result

    return run  # type: ignore[return-value]
