"""The embedded store: one SQLite database (standard library `sqlite3`, WAL journal) in the state
directory, holding the documents of `records`, one row per record and per history event.

Durability: every write is one transaction, committed before the caller goes on. In WAL mode with
`synchronous=NORMAL` a committed transaction is in the operating system's hands when `commit`
returns, so killing the process (SIGKILL) loses nothing committed; only a power cut may lose the
last ones. One connection serves every thread, behind one lock: SQLite has one writer at a time anyway.

The schema's version is SQLite's `user_version`; `migrations` upgrades an older database on open.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sfn_emulator.persistence.migrations import migrate
from sfn_emulator.persistence.records import Document, dumps, loads
from sfn_emulator.resources.aws import moto_state

DATABASE_NAME = "sfn-emulator.sqlite3"


class StoreError(Exception):
    """A state directory or database the emulator cannot use; the message says why."""


class Database:
    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory) / DATABASE_NAME
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("PRAGMA synchronous=NORMAL")
            self._connection.execute("PRAGMA busy_timeout=10000")
        except (OSError, sqlite3.OperationalError) as error:
            raise StoreError(f"cannot open the state database {self.path}: {error}") from None
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is not a usable sfn-emulator state database: {error}") from None
        self._lock = threading.RLock()
        try:
            with self.transaction() as sql:
                migrate(sql, self.path)
        except sqlite3.DatabaseError as error:
            self._connection.close()
            raise StoreError(f"{self.path} is not a usable sfn-emulator state database: {error}") from None

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write, committed on leaving the block (rolled back on an error)."""
        with self._lock:
            connection = self._connection
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

    # -- writing (inside `transaction`) -------------------------------------------------------------
    @staticmethod
    def put_resources(sql: sqlite3.Connection, account: str, region: str, machines: Iterable[Document],
                      activities: Iterable[Document], map_runs: Iterable[Document]) -> None:
        """Replace the state machines, activities and map runs of one (account, region)."""
        for table, documents in (("state_machines", machines), ("activities", activities), ("map_runs", map_runs)):
            sql.execute(f"DELETE FROM {table} WHERE account = ? AND region = ?", (account, region))
            sql.executemany(f"INSERT INTO {table} (arn, account, region, body) VALUES (?, ?, ?, ?)",
                            [(doc["arn"], account, region, dumps(doc)) for doc in documents])

    @staticmethod
    def put_map_run(sql: sqlite3.Connection, account: str, region: str, document: Document) -> None:
        sql.execute("INSERT OR REPLACE INTO map_runs (arn, account, region, body) VALUES (?, ?, ?, ?)",
                    (document["arn"], account, region, dumps(document)))

    @staticmethod
    def put_execution(sql: sqlite3.Connection, start: Document, progress: Document) -> None:
        sql.execute("INSERT OR IGNORE INTO executions (arn, account, region, start, progress) VALUES (?, ?, ?, ?, ?)",
                    (start["arn"], start["account"], start["region"], dumps(start), dumps(progress)))

    @staticmethod
    def put_progress(sql: sqlite3.Connection, execution_arn: str, progress: Document) -> None:
        sql.execute("UPDATE executions SET progress = ? WHERE arn = ?", (dumps(progress), execution_arn))

    @staticmethod
    def add_events(sql: sqlite3.Connection, execution_arn: str, events: Iterable[Document]) -> None:
        sql.executemany("INSERT OR REPLACE INTO events (execution_arn, id, body) VALUES (?, ?, ?)",
                        [(execution_arn, event["id"], dumps(event)) for event in events])

    @staticmethod
    def put_clock(sql: sqlite3.Connection, clock: Document) -> None:
        sql.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('clock', ?)", (dumps(clock),))

    def append_moto_request(self, entry: moto_state.Entry) -> None:
        """Add one request to moto's journal."""
        with self.transaction() as sql:
            sql.execute("INSERT INTO moto_journal (body) VALUES (?)", (moto_state.encode_entry(entry).decode("utf-8"),))

    def put_moto_journal(self, entries: list[moto_state.Entry]) -> None:
        """Make moto's journal exactly `entries`."""
        with self.transaction() as sql:
            self._put_moto_journal(sql, entries)

    @staticmethod
    def _put_moto_journal(sql: sqlite3.Connection, entries: list[moto_state.Entry]) -> None:
        sql.execute("DELETE FROM moto_journal")
        sql.executemany("INSERT INTO moto_journal (body) VALUES (?)",
                        [(moto_state.encode_entry(entry).decode("utf-8"),) for entry in entries])

    @staticmethod
    def forget(sql: sqlite3.Connection, account: str | None) -> None:
        """Delete every record (of `account` only, when given)."""
        where, args = ("WHERE account = ?", (account,)) if account is not None else ("", ())
        sql.execute(f"DELETE FROM events WHERE execution_arn IN (SELECT arn FROM executions {where})", args)
        for table in ("executions", "state_machines", "activities", "map_runs"):
            sql.execute(f"DELETE FROM {table} {where}", args)

    def replace_all(self, state: Document) -> None:
        """Make the database hold exactly `state` (a snapshot loaded)."""
        with self.transaction() as sql:
            self.forget(sql, None)
            for table, key in (("state_machines", "stateMachines"), ("activities", "activities"), ("map_runs", "mapRuns")):
                sql.executemany(f"INSERT INTO {table} (arn, account, region, body) VALUES (?, ?, ?, ?)",
                                [(doc["arn"], *_scope_of(doc["arn"]), dumps(doc)) for doc in state[key]])
            for execution in state["executions"]:
                self.put_execution(sql, execution["start"], execution["progress"])
                self.add_events(sql, execution["start"]["arn"], execution["events"])
            if state.get("clock") is not None:
                self.put_clock(sql, state["clock"])
            self._put_moto_journal(sql, state.get("moto") or [])

    # -- reading ---------------------------------------------------------------------------------
    def load(self) -> Document:
        """The whole stored state, in the shape of a snapshot's `state`."""
        with self._lock:
            sql = self._connection
            state: Document = {
                key: [loads(body) for (body,) in sql.execute(f"SELECT body FROM {table} ORDER BY rowid")]
                for table, key in (("state_machines", "stateMachines"), ("activities", "activities"), ("map_runs", "mapRuns"))
            }
            events: dict[str, list[Any]] = {}
            for arn, body in sql.execute("SELECT execution_arn, body FROM events ORDER BY execution_arn, id"):
                events.setdefault(arn, []).append(loads(body))
            state["executions"] = [{"start": loads(start), "progress": loads(progress), "events": events.get(arn, [])}
                                   for arn, start, progress in sql.execute("SELECT arn, start, progress FROM executions")]
            clock = sql.execute("SELECT value FROM meta WHERE key = 'clock'").fetchone()
            state["clock"] = loads(clock[0]) if clock else None
            state["moto"] = [moto_state.decode_entry(body)
                             for (body,) in sql.execute("SELECT body FROM moto_journal ORDER BY seq")]
            return state


def _scope_of(arn: str) -> tuple[str, str]:
    """(account, region) of a Step Functions ARN: arn:PARTITION:states:REGION:ACCOUNT:..."""
    parts = arn.split(":")
    return parts[4], parts[3]
