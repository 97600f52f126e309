"""State that survives a restart, and snapshots to share it.

- `database`: the embedded SQLite store in the state directory (`--state-dir`), with `migrations`;
- `records`: the service's records as JSON documents, the one shape the store and snapshots share;
- `recorder`: writes changes as they happen (control-plane answers, engine rounds);
- `restore`: the whole state as a document and back, and how running executions go on;
- `snapshot`: the portable, versioned snapshot file;
- `moto_keeper`: appends to moto's journal (`sfn_emulator.resources.aws.moto_state`) as requests change moto.

`StateDirectory` is what the runtime wires: it opens the store, gives the clock its stored time,
loads the state into the service and engine, then records every change.
"""

from __future__ import annotations

import sqlite3
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sfn_emulator.clock.virtual_clock import Clock
from sfn_emulator.engine import Engine
from sfn_emulator.persistence import restore, snapshot
from sfn_emulator.persistence.database import Database, StoreError
from sfn_emulator.persistence.moto_keeper import MotoKeeper
from sfn_emulator.persistence.recorder import Recorder
from sfn_emulator.persistence.snapshot import SnapshotError
from sfn_emulator.resources.aws import moto_state
from sfn_emulator.service import StepFunctionsService

__all__ = ["SnapshotError", "StateDirectory", "StoreError", "export_snapshot", "import_snapshot"]


class StateDirectory:
    """An emulator's state directory: open it (`StateDirectory(path)`), ask `clock_start`/`clock_mode`
    before making the clock, then `attach` the service and engine."""

    def __init__(self, directory: str | Path) -> None:
        self.database = Database(directory)
        try:
            self._state = self.database.load()
            self._loaded = restore.build(self._state)  # refuses a malformed store before anything runs
        except (ValueError, sqlite3.DatabaseError) as error:  # StateError is a ValueError
            self.database.close()
            raise StoreError(f"cannot load the state in {self.database.path}: {error}") from None
        self.recorder: Recorder | None = None
        self.moto_keeper: MotoKeeper | None = None
        self._closed = False

    def clock_start(self, mode: str, default: datetime | None) -> datetime | None:
        """Where the clock starts: where it stood when the state was last written (in real mode,
        never before now); `default` when the store holds no clock yet."""
        stored = restore.clock_document(self._state)
        if stored is None:
            return default
        if mode == "real":
            return max(stored[0], datetime.now(timezone.utc))
        return stored[0]

    def clock_mode(self, default: str) -> str:
        stored = restore.clock_document(self._state)
        return stored[1] if stored is not None else default

    def attach(self, service: StepFunctionsService, engine: Engine, clock: Clock) -> None:
        """Load the stored state (and moto's backends) into the service and engine, then record every change."""
        if self._state["moto"]:
            _say_refused(moto_state.load(self._state["moto"]), self.database.path)
        else:  # a directory that holds none keeps moto as this process holds it (the same journal)
            self.database.put_moto_journal(moto_state.journal())
        self.moto_keeper = MotoKeeper(self.database)
        self.recorder = Recorder(self.database, service, engine, clock)
        service.observe(self.recorder)
        engine.observe(self.recorder)
        for entry, revision_type in restore.install(self._loaded, service, engine):
            self.recorder.follow(entry, revision_type)
        for store in service.stores():
            self.recorder.write_resources(store)  # map runs the load closed
        self._state, self._loaded = {}, restore.Loaded([])

    def close(self) -> None:
        """Write what is left and close the database (once; later calls do nothing)."""
        if self._closed:
            return
        self._closed = True
        if self.moto_keeper is not None:
            self.moto_keeper.close()
        if self.recorder is not None:
            self.recorder.flush()
        self.database.close()


def export_snapshot(service: StepFunctionsService, engine: Engine, clock: Clock) -> bytes:
    """The whole state, moto's backends with it, as a snapshot file."""
    state = restore.capture(service, engine, clock)
    state["moto"] = moto_state.journal()
    return snapshot.encode(state)


def import_snapshot(data: bytes, service: StepFunctionsService, engine: Engine, clock: Clock,
                    recorder: Recorder | None = None) -> dict[str, Any]:
    """Replace the whole state by a snapshot's (SnapshotError, changing nothing, when it cannot be
    loaded). Running executions are stopped first; the snapshot's running ones go on by the rule of
    `restore`. The clock moves forward to the snapshot's time when that is later, never back; its
    mode stays. Answers counts of what was loaded."""
    state = snapshot.decode(data)
    try:
        loaded = restore.build(state)
    except restore.StateError as error:
        raise SnapshotError(str(error)) from None
    service.reset()
    _say_refused(moto_state.load(state["moto"]), "the snapshot")  # a snapshot without moto's backends leaves them empty
    stored = restore.clock_document(state)
    if stored is not None and stored[0] > clock.now():
        clock.set(stored[0])
    if recorder is not None:
        recorder.database.replace_all(state)
    running = restore.install(loaded, service, engine)
    if recorder is not None:
        for entry, revision_type in running:
            recorder.follow(entry, revision_type)
        for store in service.stores():
            recorder.write_resources(store)  # map runs the load closed
    counts = {"stateMachines": len(state["stateMachines"]), "activities": len(state["activities"]),
              "executions": sum(len(store.executions) for store in loaded.stores), "resumed": len(running)}
    return counts


def _say_refused(refused: list[str], source: object) -> None:
    """Requests of moto's journal that this moto refused when replayed, named on stderr."""
    for problem in refused:
        print(f"sfn-emulator: moto refused a request of its journal in {source} when replayed: {problem}",
              file=sys.stderr)
