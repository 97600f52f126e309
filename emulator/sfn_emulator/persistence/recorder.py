"""Writes what changes to the database as it changes, from two places only:

- the control plane's observer events (`ServiceObserver.changed`), on the API thread, before the
  answer is sent (and a STANDARD execution's first record before it runs, `ServiceObserver.execution_filed`): state machines, versions, aliases, tags, activities and map runs of the caller's
  (account, region) are rewritten (they are few and change rarely); a started execution's record is
  written at once; SendTask*, StopExecution and RedriveExecution wait for the engine's round that
  serves them (`Engine.barrier`), so what they caused is recorded when they are answered;
- the engine's end of round (`EngineObserver.round_ended`), on the engine thread: the new history events and the
  progress of every running execution, the map runs and the clock, in one transaction per round.

Executions are followed while they run and let go once their last change is written.
"""

from __future__ import annotations

import threading
from typing import Any

from msgspec import Struct

from sfn_emulator.clock.virtual_clock import Clock
from sfn_emulator.engine import Engine
from sfn_emulator.engine.execution import Execution, MapRun
from sfn_emulator.engine.observers import EngineObserver
from sfn_emulator.persistence import records
from sfn_emulator.persistence.database import Database
from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.observers import ServiceObserver
from sfn_emulator.service.store import ExecutionEntry, Store

# Answered only once the engine has acted on them; then their effect is recorded before the answer.
_SERVED_BY_ENGINE = frozenset({"SendTaskSuccess", "SendTaskFailure", "SendTaskHeartbeat", "StopExecution",
                               "RedriveExecution"})
_EXECUTION_STARTS = frozenset({"StartExecution", "RedriveExecution"})
_NOTHING_KEPT = frozenset({"StartSyncExecution"})  # EXPRESS executions are not kept (as AWS keeps none)


class _Followed(Struct, eq=False):
    """A running execution and how much of it the database holds."""

    entry: ExecutionEntry
    events: int  # history events written
    progress: tuple[Any, ...]  # what the written progress document was made from


class _FollowedMapRun(Struct, eq=False):
    map_run: MapRun
    written: tuple[Any, ...] | None = None


class Recorder(EngineObserver, ServiceObserver):
    """Follows the control plane and the engine (their observer: registered by `StateDirectory.attach`)."""

    def __init__(self, database: Database, service: StepFunctionsService, engine: Engine, clock: Clock) -> None:
        self.database = database
        self._service = service
        self._engine = engine
        self._clock = clock
        self._lock = threading.Lock()
        self._executions: dict[str, _Followed] = {}
        self._map_runs: dict[str, _FollowedMapRun] = {}
        self._clock_written: tuple[Any, str] | None = None

    # -- the control plane -------------------------------------------------------------------------
    def changed(self, store: Store | None, action: str, params: dict[str, Any], result: Any) -> None:
        if store is None:  # a reset
            self._forget(params.get("account"))
            return
        if action in _NOTHING_KEPT:
            return
        if action in _SERVED_BY_ENGINE:
            self._engine.barrier()
        if action in _EXECUTION_STARTS:
            arn = params.get("executionArn") or (result or {}).get("executionArn")
            with self._service.lock:
                entry = store.executions.get(arn) if arn else None
            if entry is not None:
                revision_type = self._revision_type(store, entry)
                self._engine.between_steps(lambda: self.follow(entry, revision_type))
        elif action not in _SERVED_BY_ENGINE:
            self.write_resources(store)

    def execution_filed(self, store: Store, entry: ExecutionEntry) -> None:
        """A started execution's record, written before it runs: if it cannot be written (a full
        disk), the start fails and nothing runs, so a client's retry does not run it twice."""
        with self.database.transaction() as sql:
            self.database.put_execution(sql, records.execution_start_document(entry, self._revision_type(store, entry)),
                                        self._progress(entry))

    def write_resources(self, store: Store) -> None:
        """Rewrite the state machines, activities and map runs of one (account, region)."""
        with self._service.lock:
            machines = [records.state_machine_document(r) for r in store.state_machines.values()]
            activities = [records.activity_document(r) for r in store.activities.values()]
            map_runs = [records.map_run_document(r) for r in store.map_runs.values()]
        with self.database.transaction() as sql:
            self.database.put_resources(sql, store.account, store.region, machines, activities, map_runs)

    def _forget(self, account: str | None) -> None:
        with self._lock:
            for arn in [arn for arn, f in self._executions.items() if account in (None, f.entry.execution.account)]:
                del self._executions[arn]
            with self.database.transaction() as sql:
                self.database.forget(sql, account)

    @staticmethod
    def _revision_type(store: Store, entry: ExecutionEntry) -> str:
        record = store.state_machines.get(entry.execution.state_machine_arn)
        return record.type if record is not None else entry.execution.type

    # -- executions --------------------------------------------------------------------------------
    def follow(self, entry: ExecutionEntry, revision_type: str) -> None:
        """Write the execution's record as it stands and, while it runs, follow it.

        Called on the engine thread (`Engine.between_steps`, or an engine listener), so its status,
        history and progress are read at one moment: read from another thread while the engine ran
        it, a quick execution could be written SUCCEEDED beside fewer events than it had, and a
        kill before the next round lost the rest. The engine's later rounds write what follows."""
        execution = entry.execution
        with self._lock:
            running = execution.is_running
            events = execution.history[:]
            progress = self._progress_key(execution)
            with self.database.transaction() as sql:
                self.database.put_execution(sql, records.execution_start_document(entry, revision_type),
                                             self._progress(entry))
                self.database.put_progress(sql, execution.arn, self._progress(entry))
                self.database.add_events(sql, execution.arn, [records.event_document(e) for e in events])
            if running:
                self._executions[execution.arn] = _Followed(entry, len(events), progress)
            else:
                self._executions.pop(execution.arn, None)

    def map_run_child_started(self, child: Execution, map_run: MapRun) -> None:
        """Engine observer (after the service filed the child): follow a map run's child execution."""
        store = self._service.store_of(child.account, child.region)
        with self._service.lock:
            entry = store.executions.get(child.arn)
            parent = store.executions.get(map_run.execution_arn)
        if entry is not None:
            self.follow(entry, self._revision_type(store, parent) if parent is not None else child.type)

    def map_run_began(self, map_run: MapRun) -> None:
        with self._lock:
            self._map_runs[map_run.arn] = _FollowedMapRun(map_run)

    def _progress(self, entry: ExecutionEntry) -> records.Document:
        arn = entry.execution.arn
        return records.execution_progress_document(entry, self._engine.restart_point(arn),
                                                   self._engine.top_variables(arn), self._engine.top_task_token(arn))

    def _progress_key(self, execution: Execution) -> tuple[Any, ...]:
        """What the progress document is made from; the restart point compared by identity (the
        engine makes a new one per top-level state), never by its possibly large input."""
        return (execution.status, execution.redrive_count, _Identity(self._engine.restart_point(execution.arn)),
                self._engine.top_task_token(execution.arn))

    # -- the engine's rounds -------------------------------------------------------------------------
    def round_ended(self) -> None:
        self.flush()

    def flush(self) -> None:
        """Write what the round changed: new events, progress, map runs, the clock (one transaction)."""
        with self._lock:
            changed: list[tuple[_Followed, int, tuple[Any, ...]]] = []
            for followed in list(self._executions.values()):
                execution = followed.entry.execution
                progress = self._progress_key(execution)
                count = len(execution.history)
                if count != followed.events or progress != followed.progress:
                    changed.append((followed, count, progress))
            map_runs = [(f, self._map_run_key(f.map_run)) for f in self._map_runs.values()]
            map_runs = [(f, key) for f, key in map_runs if key != f.written]
            clock = (self._clock.now(), self._clock.mode)
            if not changed and not map_runs and clock == self._clock_written:
                return
            with self.database.transaction() as sql:
                for followed, count, progress in changed:
                    execution = followed.entry.execution
                    events = execution.history[followed.events:count]
                    self.database.add_events(sql, execution.arn, [records.event_document(e) for e in events])
                    self.database.put_progress(sql, execution.arn, self._progress(followed.entry))
                for followed_run, _ in map_runs:
                    run = followed_run.map_run
                    self.database.put_map_run(sql, *_scope(run.arn), records.map_run_document(run))
                if clock != self._clock_written:
                    self.database.put_clock(sql, {"time": clock[0], "mode": clock[1]})
            for followed, count, progress in changed:
                followed.events, followed.progress = count, progress
                if progress[0] != "RUNNING":
                    self._executions.pop(followed.entry.execution.arn, None)
            for followed_run, key in map_runs:
                followed_run.written = key
                if key[0] != "RUNNING":
                    self._map_runs.pop(followed_run.map_run.arn, None)
            self._clock_written = clock

    @staticmethod
    def _map_run_key(map_run: MapRun) -> tuple[Any, ...]:
        return (map_run.status, map_run.total_items, map_run.results_written, len(map_run.executions),
                map_run.max_concurrency, map_run.tolerated_failure_count, map_run.tolerated_failure_percentage)


class _Identity:
    """Equal to another only when holding the very same object."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


def _scope(arn: str) -> tuple[str, str]:
    parts = arn.split(":")
    return parts[4], parts[3]
