"""The embedded store: one SQLite database (standard library `sqlite3`, WAL journal) in the state
directory, holding the documents of `records`, one row per record and per history event.

Durability: every write is one transaction, committed before the caller goes on. In WAL mode with
`synchronous=NORMAL` a committed transaction is in the operating system's hands when `commit`
returns, so killing the process (SIGKILL) loses nothing committed; only a power cut may lose the
last ones. One connection serves every thread, behind one lock: SQLite has one writer at a time anyway.

The schema's version is SQLite's `user_version`; `migrations` upgrades an older database on open.

One server per state directory: the database is opened under an exclusive lock on `DIR/sfn-emulator.lock`
(`fcntl.flock`, released when the database is closed or the process ends, even by SIGKILL), and a second
is refused with a message naming the process holding it. What SQLite would read silently as nothing is
refused rather than started empty: a zero-byte database file, and a write-ahead log that is not one.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from sfn_emulator.persistence.migrations import migrate
from sfn_emulator.persistence.records import Document, dumps, loads
from sfn_emulator.resources.aws import moto_state

DATABASE_NAME = "sfn-emulator.sqlite3"
LOCK_NAME = "sfn-emulator.lock"
_WAL_MAGIC = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")  # a WAL file's first four bytes (sqlite.org/fileformat)
_WAL_HEADER_SIZE = 32


class StoreError(Exception):
    """A state directory or database the emulator cannot use; the message says why."""


class Database:
    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory) / DATABASE_NAME
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot open the state database {self.path}: {error}") from None
        self._lock_file = _locked(self.path.parent / LOCK_NAME)
        try:
            self._open()
        except BaseException:
            self._lock_file.close()
            raise

    def _open(self) -> None:
        _check_files(self.path)
        try:
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
            self._lock_file.close()  # the lock goes with it

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


def _locked(path: Path) -> IO[str]:
    """The lock file, held exclusively; StoreError naming its holder when another process (or
    another emulator of this one) holds it."""
    try:
        file = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the database's lifetime
    except OSError as error:
        raise StoreError(f"cannot open the state directory's lock {path}: {error}") from None
    try:
        fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        file.seek(0)
        holder = file.read(40).strip() or "unknown"
        file.close()
        raise StoreError(f"the state directory {path.parent} is in use by another sfn-emulator (process {holder}); "
                         "two servers on one state directory would overwrite each other's state: stop it, or "
                         "give this one another --state-dir") from None
    file.truncate(0)
    file.write(str(os.getpid()))
    file.flush()
    return file


def _check_files(path: Path) -> None:
    """StoreError for what SQLite would read as nothing: an empty database file, or a WAL that is not one."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        size = None
    if size == 0:
        raise StoreError(f"{path} is empty (zero bytes), so it holds no sfn-emulator state: it may have been "
                         "truncated; restore it from a copy, or remove it to start with an empty state")
    wal = path.with_name(path.name + "-wal")
    try:
        with open(wal, "rb") as file:
            header = file.read(_WAL_HEADER_SIZE)
    except FileNotFoundError:
        return
    except OSError as error:
        raise StoreError(f"cannot read the write-ahead log {wal}: {error}") from None
    if header and (len(header) < _WAL_HEADER_SIZE or header[:4] not in _WAL_MAGIC):
        raise StoreError(f"{wal} is not an SQLite write-ahead log (it may be damaged): SQLite would drop it and "
                         "what it holds, the latest changes, without a word; restore it from a copy, or remove "
                         "it to start from the database alone")
