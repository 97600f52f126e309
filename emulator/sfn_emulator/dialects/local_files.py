"""The files a definition may name: what `file://` references read, and where.

A definition sent to the API (CreateStateMachine, ValidateStateMachineDefinition, ... over HTTP or
in-process) may read a `file://` URI only under a directory the operator allows
(`--allowed-file-roots` / `SFN_EMULATOR_ALLOWED_FILE_ROOTS`; none by default), after symbolic links
are followed, with one message whether a file outside them exists or not. A definition the operator
names by its file (`sfn-emulator run|validate|graph FILE`, `run_definition(path)`) reads what it
names itself, as its author's own files, when it is read (`anchor`).

Either way only a regular file is read (never a device, a FIFO or a socket), at most
`MAX_BYTES` of it (the size Step Functions allows a definition), and no part of a file that is
refused reaches a message.

The allowed roots are the process's: the last `Emulator` made sets them (`allow_under`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from sfn_emulator.resources.bounded_reads import ReadLimitExceeded, read_file

MAX_BYTES = 1_048_576  # a state machine definition's largest size in Step Functions
ROOTS_SETTING = "--allowed-file-roots / SFN_EMULATOR_ALLOWED_FILE_ROOTS"

_roots: tuple[Path, ...] = ()


class UnreadableFile(ValueError):
    """A file a definition names that is not read; the message says why, never what it holds."""


def allow_under(roots: Iterable[Path]) -> None:
    """Let definitions sent to the API read files under `roots` only (none: no file at all)."""
    global _roots
    _roots = tuple(Path(os.path.realpath(root)) for root in roots)


def allowed_roots() -> tuple[Path, ...]:
    return _roots


def read_allowed(path: Path) -> str:
    """The text of `path` if it lies under an allowed root (see the module docstring)."""
    resolved = Path(os.path.realpath(path))
    if not any(resolved.is_relative_to(root) for root in _roots):
        raise UnreadableFile("it is not under a directory definitions may read files from "
                             f"(the operator allows them with {ROOTS_SETTING}; "
                             f"{'none is allowed' if not _roots else 'allowed: ' + ', '.join(map(str, _roots))})")
    return read_regular(resolved)


def read_regular(path: Path) -> str:
    """The UTF-8 text of a regular file of at most MAX_BYTES (the shared bounded reader's rules)."""
    try:
        data = read_file(path, limit_bytes=MAX_BYTES)
    except ReadLimitExceeded:
        raise UnreadableFile(f"it is larger than {MAX_BYTES} bytes") from None
    except OSError as error:
        raise UnreadableFile("it is not a regular file" if error.strerror is None
                             else error.strerror) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableFile("it is not UTF-8 text") from None
