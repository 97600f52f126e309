"""Keeps moto's backends in the state directory's database as they change.

`sfn_emulator.resources.aws.moto_state` calls `changed` after every moto request that may change a
backend, on the thread serving it and before its answer is used: the whole of moto's state is
written then, in one transaction, so a call that was answered is never lost to a SIGKILL. Writes are
serialised; each dumps moto after its own call, so the last written is the newest. A dump equal to
the last one written is not written again.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
import threading

from sfn_emulator.persistence.database import Database
from sfn_emulator.resources.aws import moto_state


class MotoKeeper:
    def __init__(self, database: Database) -> None:
        self._database = database
        self._lock = threading.Lock()
        self._written: str | None = None
        self._reported: set[str] = set()
        moto_state.listen(self.changed)

    def changed(self) -> None:
        with self._lock:
            dumped = _dump_consistently()
            digest = hashlib.sha256(dumped.blob).hexdigest()
            if digest != self._written:
                try:
                    self._database.put_moto_state(dumped.blob)
                except sqlite3.ProgrammingError:  # its database was closed (an emulator not closed): it keeps no more
                    self.close()
                    return
                self._written = digest
            for reason in dumped.skipped:
                if reason not in self._reported:  # said once: a backend moto cannot copy is not kept
                    self._reported.add(reason)
                    print(f"sfn-emulator: moto's backend not kept in the state directory: {reason}", file=sys.stderr)

    def close(self) -> None:
        moto_state.stop_listening(self.changed)


def _dump_consistently(attempts: int = 5) -> moto_state.Dumped:
    """A dump; another thread's request changing a dict mid-pickle makes it try again (bounded)."""
    for _ in range(attempts - 1):
        try:
            return moto_state.dump()
        except RuntimeError:  # "dictionary changed size during iteration"
            continue
    return moto_state.dump()
