"""Replaying a recorded execution against a definition, and turning an execution into a test case.

A replay reads a GetExecutionHistory answer (`history`), takes from it what the outside world
answered each Task attempt and the steps the execution took (`recording`), runs the definition in
an emulator of its own whose clock starts at the recording's start time, answering each Task from
the recording by its place, state, visit and attempt (`answers`, a task resource first in that
emulator's chain: nothing inside the engine knows of replays), and compares the new history with
the recorded one (`comparison`). `test_case` writes a recording as a Step Functions Local mock
configuration test case. The composition root wires them: `Emulator.replay`, the CLI's `replay`
and `export-test`, the pytest fixture.
"""

from sfn_emulator.replay.comparison import Divergence
from sfn_emulator.replay.history import HistoryError, history_events, read_history_file
from sfn_emulator.replay.run import RedriveCheck, ReplayError, ReplayOptions, ReplayResult, replay

__all__ = ["Divergence", "HistoryError", "RedriveCheck", "ReplayError", "ReplayOptions", "ReplayResult",
           "history_events", "read_history_file", "replay"]
