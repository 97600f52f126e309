"""`POST /_emulator/snapshot` answers the whole state as a snapshot file; `PUT /_emulator/snapshot`
replaces the whole state by the snapshot file in its body (`sfn_emulator.persistence.snapshot`).

Both are writes under `/_emulator/`, so the local-only guard asks for `Content-Type:
application/json` (a snapshot is JSON; send `{}` to export). A file that cannot be loaded gets 400
`{"message": ...}` saying why, and changes nothing; a load answers 200 with counts of what it loaded.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from flask import Flask, Response, request

SNAPSHOT_PATH = "/_emulator/snapshot"



def mount_snapshot_api(app: Flask, export: Callable[[], bytes], load: Callable[[bytes], dict[str, Any]]) -> None:
    """`load` raises ValueError (a SnapshotError) for a file it refuses."""

    @app.post(SNAPSHOT_PATH)
    def export_snapshot() -> Response:
        answer = Response(export(), status=200, mimetype="application/json")
        answer.headers["Content-Disposition"] = 'attachment; filename="sfn-emulator-snapshot.json"'
        return answer

    @app.put(SNAPSHOT_PATH)
    def load_snapshot() -> Response:
        try:
            loaded = load(request.get_data())
        except ValueError as error:
            return _json({"message": f"Snapshot refused: {error}"}, 400)
        return _json({"loaded": loaded}, 200)


def _json(body: dict[str, Any], status: int) -> Response:
    return Response(json.dumps(body), status=status, mimetype="application/json")
