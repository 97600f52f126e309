"""The pytest plugin's `--sfn-emulator-snapshot FILE`: the session's emulator starts from a snapshot."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

import sfn_emulator.inprocess  # noqa: F401  (imported once: pytester's sessions drop what they import)
import sfn_emulator_plugins.pytest_emulator  # noqa: F401
from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator

pytest_plugins = ["pytester"]
QUIET = ("-p", "no:hypothesispytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist")


def seeded_snapshot(path: Path) -> Path:
    with Emulator(Settings(clock="manual")) as emulator:
        emulator.service.create_state_machine(
            name="seeded", definition=json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}),
            roleArn="arn:aws:iam::123456789012:role/r")
        path.write_bytes(emulator.export_snapshot())
    return path


def test_the_session_starts_from_the_snapshot(pytester: pytest.Pytester, tmp_path: Path) -> None:
    snapshot = seeded_snapshot(tmp_path / "seeded.json")
    pytester.makepyfile(test_user=textwrap.dedent("""
        import pytest

        @pytest.mark.sfn_emulator_shared
        def test_seeded_machine_is_there(sfn_client):
            names = [m["name"] for m in sfn_client.list_state_machines()["stateMachines"]]
            assert names == ["seeded"]
    """))
    pytester.runpytest(*QUIET, f"--sfn-emulator-snapshot={snapshot}").assert_outcomes(passed=1)


def test_a_snapshot_that_cannot_be_loaded_stops_the_session(pytester: pytest.Pytester, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "sfn-emulator-snapshot", "version": 1')
    pytester.makepyfile(test_user="def test_any(sfn_client):\n    pass\n")
    result = pytester.runpytest(*QUIET, f"--sfn-emulator-snapshot={broken}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*--sfn-emulator-snapshot*broken.json: not a snapshot: the file is not valid JSON*"])
