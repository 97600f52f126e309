"""Exit statuses every `sfn-emulator` command shares, and the one way a command refuses what it was given."""

from __future__ import annotations

import sys

EXIT_OK = 0
EXIT_NOT_OK = 1  # the command ran and its answer is "no" (an invalid definition, a failed execution)
EXIT_UNUSABLE = 2  # the command could not run: a bad argument, an unreadable file, nothing answering


def unusable(message: object) -> int:
    """Say why the command cannot run (on standard error, as `sfn-emulator: ...`); its exit status."""
    print(f"sfn-emulator: {message}", file=sys.stderr)
    return EXIT_UNUSABLE
