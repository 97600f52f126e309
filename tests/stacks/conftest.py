"""An in-process emulator of its own for each test that loads stacks (tests/helpers/stack_fixtures.py names them)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sfn_emulator.api import ExecutionRunner, in_process_runner
from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator


@pytest.fixture
def emulator(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    """An in-process emulator of its own (its own account, so moto's process-wide backends are not shared)."""
    account = f"{abs(hash(request.node.nodeid)) % 10**12:012d}"
    with Emulator(Settings(account=account)) as instance:
        yield instance


@pytest.fixture
def runner(emulator: Emulator) -> ExecutionRunner:
    return in_process_runner(emulator, role_arn=f"arn:aws:iam::{emulator.settings.account}:role/test")
