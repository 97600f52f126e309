"""Runs the installed `sfn-emulator` console script as a user would, from the repository's top."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from helpers.paths import REPOSITORY

# The script pip installed beside this interpreter (the project's virtual environment).
CONSOLE_SCRIPT = Path(sys.executable).parent / "sfn-emulator"

SfnEmulator = Callable[..., subprocess.CompletedProcess]


@pytest.fixture(scope="session")
def sfn_emulator() -> SfnEmulator:
    """`sfn_emulator("run", ..., stdin=..., env=...)`: the command's exit code, stdout and stderr.

    The emulator's own variables are cleared from the environment, so that only a case's `env` sets them.
    """
    assert CONSOLE_SCRIPT.exists(), f"the project is not installed in {CONSOLE_SCRIPT.parent}"
    from sfn_emulator.config import OPTIONS

    base = {name: value for name, value in os.environ.items() if name not in {option.env for option in OPTIONS}}

    def run(*args: str, stdin: str | None = None, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(CONSOLE_SCRIPT), *args], input=stdin if stdin is not None else "", capture_output=True,
            text=True, cwd=REPOSITORY, env={**base, **(env or {})}, timeout=120,
        )

    return run
