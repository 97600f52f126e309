"""`sfn-emulator snapshot save FILE` and `snapshot load FILE`: export a running emulator's whole
state to a file, or replace it by a file's (`POST` / `PUT /_emulator/snapshot`).

Exit codes: 0 done; 2 unreachable endpoint, unreadable file, or a snapshot the emulator refused
(the message says why: not a snapshot, corrupted, a newer format).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sfn_emulator.cli.exits import EXIT_OK, unusable
from sfn_emulator.config import Settings

DEFAULT_ENDPOINT = "http://127.0.0.1:8083"
_PATH = "/_emulator/snapshot"


def add_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    snapshot = commands.add_parser(
        "snapshot", help="save a running emulator's whole state to a file, or load one into it",
        description="Save the whole state of a running emulator (state machines with versions, aliases and "
        "tags, activities, executions with their histories, map runs, the clock) to one portable, versioned "
        "JSON file, or replace its state by such a file's, e.g. a seeded state committed for CI.",
    )
    actions = snapshot.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, help_text in (("save", "write the emulator's state to FILE"),
                              ("load", "replace the emulator's state by FILE's")):
        parser = actions.add_parser(action, help=help_text, description=help_text)
        parser.add_argument("file", metavar="FILE", help="the snapshot file (- for standard output or input)")
        parser.add_argument("--endpoint", metavar="URL", default=DEFAULT_ENDPOINT,
                            help=f"the running emulator (default {DEFAULT_ENDPOINT})")
        parser.set_defaults(handler=snapshot_command)


def snapshot_command(settings: Settings, arguments: argparse.Namespace) -> int:
    from sfn_emulator.cli.http import EndpointError, request

    if arguments.action == "save":
        body, method = b"{}", "POST"
    else:
        try:
            body = sys.stdin.buffer.read() if arguments.file == "-" else Path(arguments.file).read_bytes()
        except OSError as error:
            return unusable(f"cannot read {arguments.file}: {error.strerror or error}")
        method = "PUT"
    try:
        data = request(arguments.endpoint, _PATH, method=method, body=body, timeout=300)
    except EndpointError as error:
        return unusable(str(error))
    if arguments.action == "save":
        try:
            if arguments.file == "-":
                sys.stdout.buffer.write(data)
            else:
                Path(arguments.file).write_bytes(data)
        except OSError as error:
            return unusable(f"cannot write {arguments.file}: {error.strerror or error}")
        print(f"Saved the state of {arguments.endpoint} to {arguments.file}", file=sys.stderr)
    else:
        loaded = json.loads(data).get("loaded", {})
        print(f"Loaded {arguments.file} into {arguments.endpoint}: "
              + ", ".join(_counted(count, name) for name, count in loaded.items()), file=sys.stderr)
    return EXIT_OK



# The snapshot endpoint's count keys as words: (one, several).
_WORDS = {"stateMachines": ("state machine", "state machines"), "activities": ("activity", "activities"),
          "executions": ("execution", "executions"), "resumed": ("resumed", "resumed")}


def _counted(count: int, key: str) -> str:
    """`1 state machine`, `4 state machines`: a count of what the snapshot held, as a sentence says it."""
    one, several = _WORDS.get(key, (key, key))
    return f"{count} {one if count == 1 else several}"
