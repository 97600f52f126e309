"""The snapshot file: the whole state of an emulator as one portable JSON document, to commit a
seeded state and load it elsewhere (CI, a colleague's machine).

    {"format": "sfn-emulator-snapshot", "version": 3, "sfnEmulator": "<version that wrote it>",
     "sha256": "<hex digest of the state's JSON text>", "state": {...}}

`state` holds the documents of `sfn_emulator.persistence.records`, and `moto`: moto's backends as
the journal of requests of `sfn_emulator.resources.aws.moto_state`. Everything in it is data:
loading a snapshot parses JSON and checks shapes, and runs nothing the file could choose. The
digest only detects damage (anyone can recompute it); it is no signature.

A version-1 file, written before moto's backends were kept, loads with them empty. A version-2 file
holding moto's backends (a Python pickle in base64) is refused, since loading a pickle can run code;
one whose `moto` is null loads. A file of another format, of a later version, or whose state no
longer matches its digest (truncated, edited, corrupted) is refused with a message saying which.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import sfn_emulator
from sfn_emulator.persistence.records import Document, dumps, loads
from sfn_emulator.resources.aws import moto_state

FORMAT = "sfn-emulator-snapshot"
VERSION = 3
MEDIA_TYPE = "application/json"


class SnapshotError(ValueError):
    """A snapshot that cannot be loaded; the message says why."""


def encode(state: Document) -> bytes:
    text = dumps({**state, "moto": moto_state.document(state.get("moto") or [])})
    return (f'{{"format":"{FORMAT}","version":{VERSION},"sfnEmulator":{json.dumps(sfn_emulator.__version__)},'
            f'"sha256":"{_digest(text)}","state":{text}}}').encode("utf-8")


def decode(data: bytes) -> Document:
    """The state of a snapshot file; SnapshotError if it is not one this sfn-emulator can load."""
    try:
        document: Any = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise SnapshotError(f"not a snapshot: the file is not valid JSON ({error}); it may be truncated or corrupted") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise SnapshotError(f'not a snapshot: a snapshot is a JSON object with "format": "{FORMAT}"')
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise SnapshotError('the snapshot has no valid "version"')
    if version > VERSION:
        raise SnapshotError(f"the snapshot's format version {version} is newer than this sfn-emulator's ({VERSION}); it "
                            f"was written by sfn-emulator {document.get('sfnEmulator', '?')}: upgrade sfn-emulator "
                            f"(this is {sfn_emulator.__version__}) to load it")
    state = document.get("state")
    if not isinstance(state, dict):
        raise SnapshotError('the snapshot has no "state" object')
    if document.get("sha256") != _digest(dumps(state)):
        raise SnapshotError("the snapshot is corrupted: its state does not match its sha256 digest")
    return _upgraded(loads(json.dumps(state)), version)  # with its times as datetimes again


def _upgraded(state: Document, version: int) -> Document:
    """The state in the current version's shape: moto's journal as entries (none before version 3)."""
    moto = state.get("moto")
    if version < 3:
        if moto is not None:
            raise SnapshotError(f"the snapshot (format version {version}) holds moto's backends as a Python pickle; "
                                "loading a pickle can run code, so this sfn-emulator refuses it: seed those AWS "
                                "resources again and save a new snapshot")
        state["moto"] = []
        return state
    try:
        state["moto"] = moto_state.entries_of(moto)
    except moto_state.MotoStateError as error:
        raise SnapshotError(str(error)) from None
    return state


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
