"""The database schema, its version and the upgrades from older versions.

The version lives in SQLite's `user_version`. A new database gets the current schema; an older one
is upgraded in place, one step at a time, inside the transaction that opens it; a newer one (written
by a later sfn-emulator) is refused rather than misread.

History of the schema:
1. `meta` held the clock as two rows, `clock_time` (ISO-8601) and `clock_mode`; no map runs.
2. The clock is one JSON row `clock` ({"time", "mode"}); the `map_runs` table holds Distributed Map runs.
3. The `moto_state` table held moto's backends as one pickled blob.
4. The `moto_journal` table holds moto's backends as the requests that built them, one JSON row each
   (`sfn_emulator.resources.aws.moto_state`); a version-3 pickle is dropped unread (loading a pickle
   can run code), with a notice on stderr.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Callable

SCHEMA_VERSION = 4

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE state_machines (arn TEXT PRIMARY KEY, account TEXT NOT NULL, region TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE activities (arn TEXT PRIMARY KEY, account TEXT NOT NULL, region TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE executions (arn TEXT PRIMARY KEY, account TEXT NOT NULL, region TEXT NOT NULL,
                         start TEXT NOT NULL, progress TEXT NOT NULL);
CREATE TABLE events (execution_arn TEXT NOT NULL, id INTEGER NOT NULL, body TEXT NOT NULL,
                     PRIMARY KEY (execution_arn, id)) WITHOUT ROWID;
CREATE TABLE map_runs (arn TEXT PRIMARY KEY, account TEXT NOT NULL, region TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE moto_journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL);
"""


class NewerSchema(sqlite3.DatabaseError):
    """The database was written by a later sfn-emulator."""


def _v1_to_v2(sql: sqlite3.Connection, path: Path) -> None:
    """Fold the two clock rows into one JSON row; add the map runs table."""
    rows = dict(sql.execute("SELECT key, value FROM meta WHERE key IN ('clock_time', 'clock_mode')").fetchall())
    sql.execute("DELETE FROM meta WHERE key IN ('clock_time', 'clock_mode')")
    if "clock_time" in rows:
        clock = {"time": {"$time": rows["clock_time"]}, "mode": rows.get("clock_mode", "auto")}
        sql.execute("INSERT INTO meta (key, value) VALUES ('clock', ?)", (json.dumps(clock),))
    sql.execute("CREATE TABLE map_runs (arn TEXT PRIMARY KEY, account TEXT NOT NULL, region TEXT NOT NULL, "
                "body TEXT NOT NULL)")


def _v2_to_v3(sql: sqlite3.Connection, path: Path) -> None:
    """Add the table of moto's backends (empty: a version-2 store kept none)."""
    sql.execute("CREATE TABLE moto_state (id INTEGER PRIMARY KEY CHECK (id = 1), body BLOB NOT NULL)")


def _v3_to_v4(sql: sqlite3.Connection, path: Path) -> None:
    """Drop the pickled blob of moto's backends without reading it; add the journal (empty)."""
    if sql.execute("SELECT 1 FROM moto_state").fetchone() is not None:
        print(f"sfn-emulator: {path} held moto's backends as a Python pickle (written by an older sfn-emulator); "
              "loading a pickle can run code, so it was dropped unread: the AWS services behind integrations "
              "start empty", file=sys.stderr)
    sql.execute("DROP TABLE moto_state")
    sql.execute("CREATE TABLE moto_journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)")


# UPGRADES[n] upgrades a version-n database to version n + 1.
UPGRADES: dict[int, Callable[[sqlite3.Connection, Path], None]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4}


def migrate(sql: sqlite3.Connection, path: Path) -> int:
    """Bring the database to SCHEMA_VERSION (inside the caller's transaction); answers the version found."""
    found = sql.execute("PRAGMA user_version").fetchone()[0]
    if found == 0 and not sql.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                sql.execute(statement)
    elif found > SCHEMA_VERSION:
        raise NewerSchema(f"its schema version {found} is newer than this sfn-emulator's ({SCHEMA_VERSION}); "
                          "upgrade sfn-emulator to use it")
    elif found < 1:
        raise sqlite3.DatabaseError("it has tables but no sfn-emulator schema version")
    else:
        for version in range(found, SCHEMA_VERSION):
            UPGRADES[version](sql, path)
    sql.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return found
