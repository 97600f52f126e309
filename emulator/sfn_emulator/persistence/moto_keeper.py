"""Keeps moto's journal (`sfn_emulator.resources.aws.moto_state`) in the state directory's database
as it grows.

moto_state tells its observers of every kept request, on the thread that served it and before its
answer is used: the entry is appended in its own transaction, so a call that was answered is never
lost to a SIGKILL. A reset of everything empties the journal.
"""

from __future__ import annotations

import sqlite3

from sfn_emulator.persistence.database import Database
from sfn_emulator.resources.aws import moto_state


class MotoKeeper(moto_state.JournalObserver):
    def __init__(self, database: Database) -> None:
        self._database = database
        moto_state.observe(self)

    def journal_changed(self, entry: moto_state.Entry | None) -> None:
        try:
            if entry is None:
                self._database.put_moto_journal([])
            else:
                self._database.append_moto_request(entry)
        except sqlite3.ProgrammingError:  # its database was closed (an emulator not closed): it keeps no more
            self.close()

    def close(self) -> None:
        moto_state.stop_observing(self)
