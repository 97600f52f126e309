"""The snapshot file: the whole state of an emulator as one portable JSON document, to commit a
seeded state and load it elsewhere (CI, a colleague's machine).

    {"format": "sfn-emulator-snapshot", "version": 2, "sfnEmulator": "<version that wrote it>",
     "sha256": "<hex digest of the state's JSON text>", "state": {...}}

`state` holds the documents of `sfn_emulator.persistence.records`, and (since version 2) `moto`:
moto's backends, the blob of `sfn_emulator.resources.aws.moto_state` in base64. A version-1 file,
written before moto's backends were kept, loads with them empty. A file of another format, of a
later version, or whose state no longer matches its digest (truncated, edited, corrupted) is refused
with a message saying which.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import sfn_emulator
from sfn_emulator.persistence.records import Document, dumps, loads

FORMAT = "sfn-emulator-snapshot"
VERSION = 2
MEDIA_TYPE = "application/json"


class SnapshotError(ValueError):
    """A snapshot that cannot be loaded; the message says why."""


def encode(state: Document) -> bytes:
    moto = state.get("moto")
    text = dumps({**state, "moto": base64.b64encode(moto).decode("ascii") if moto is not None else None})
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
    return _upgraded(loads(json.dumps(state)))  # with its times as datetimes again


def _upgraded(state: Document) -> Document:
    """The state in the current version's shape: moto's blob as bytes (None in a version-1 file)."""
    moto = state.get("moto")
    if moto is not None and not isinstance(moto, str):
        raise SnapshotError('the snapshot\'s "moto" is not a base64 string')
    try:
        state["moto"] = base64.b64decode(moto, validate=True) if moto is not None else None
    except ValueError as error:
        raise SnapshotError(f'the snapshot\'s "moto" is not valid base64: {error}') from None
    return state


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
