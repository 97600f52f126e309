"""A server process keeps what it loaded for life out of the garbage collector's full passes; a
test's own process is left alone (`sfn_emulator.process.long_lived`). Run in fresh interpreters: a freeze
is process-wide."""

from __future__ import annotations

import subprocess
import sys

_FREEZE_COUNTS = """
import gc
from sfn_emulator.process import long_lived
counts = [gc.get_freeze_count()]
long_lived.loaded()
counts.append(gc.get_freeze_count())
{enable}
counts.append(gc.get_freeze_count())
kept = [[index] for index in range(1000)]
long_lived.loaded()
counts.append(gc.get_freeze_count())
print(*counts)
"""


def _freeze_counts(enable: str) -> list[int]:
    finished = subprocess.run([sys.executable, "-c", _FREEZE_COUNTS.format(enable=enable)], capture_output=True,
                              text=True, check=True, timeout=60)
    return [int(count) for count in finished.stdout.split()]


def test_a_process_that_is_not_the_servers_freezes_nothing() -> None:
    assert _freeze_counts("") == [0, 0, 0, 0]


def test_a_servers_process_freezes_what_is_loaded_at_enabling_and_after_each_load() -> None:
    before, unchanged, enabled, after_load = _freeze_counts("long_lived.enable()")
    assert (before, unchanged) == (0, 0)
    assert enabled > 0
    assert after_load >= enabled + 1000  # the thousand lists made since were frozen by the next load


def test_an_in_process_emulator_with_aws_integrations_leaves_the_collector_alone() -> None:
    code = ("import gc\nfrom sfn_emulator import Emulator, Settings\n"
            "with Emulator(Settings(log_level='WARNING')) as emulator:\n"
            "    emulator.aws.resource\n"
            "print(gc.get_freeze_count())")
    finished = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert finished.stdout.split() == ["0"]
