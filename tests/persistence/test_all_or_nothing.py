"""A request that fails changes nothing: a StartExecution whose record cannot be written (a full disk,
here a file-size limit on a real server process) is answered with an error and never runs, so a
client's retry cannot run it twice; across a restart, only the executions that were answered exist."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from helpers.clients import make_client
from helpers.state_servers import BANNER, CONSOLE_SCRIPT

ROLE = "arn:aws:iam::123456789012:role/persist"
FILE_SIZE_LIMIT = 1_500_000  # bytes any file of the server may grow to: a few large starts fill it
LARGE_INPUT = json.dumps({"padding": "x" * 200_000})  # under StartExecution's 256 KiB input quota
WAITING = {"StartAt": "Hold", "States": {"Hold": {"Type": "Wait", "Seconds": 3600, "End": True}}}
STARTS_BOUND = 40  # starts tried at most before the disk is full (each writes over 200 KB)


def _limited_server(state_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """`sfn-emulator serve` whose files cannot grow past FILE_SIZE_LIMIT (Python ignores SIGXFSZ, so a
    write past it fails with EFBIG, as on a full disk)."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))

    process = subprocess.Popen([str(CONSOLE_SCRIPT), "serve", "--port", "0", "--clock", "manual",
                                "--state-dir", str(state_dir)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, preexec_fn=limit, env={**os.environ, "SFN_EMULATOR_STATE_DIR": ""})
    assert process.stdout is not None
    for line in process.stdout:
        if BANNER in line:
            threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()  # type: ignore[union-attr]
            return process, line.split(BANNER, 1)[1].split()[0]
    process.wait(timeout=120)
    raise AssertionError("the server did not start")


def test_a_start_that_cannot_be_recorded_is_refused_and_never_runs(tmp_path: Path, servers: Any) -> None:
    process, url = _limited_server(tmp_path / "state")
    try:
        sfn = make_client(url)
        machine = sfn.create_state_machine(name="held", definition=json.dumps(WAITING), roleArn=ROLE)["stateMachineArn"]
        answered: list[str] = []
        refused = None
        for number in range(STARTS_BOUND):
            try:
                answered.append(sfn.start_execution(stateMachineArn=machine, name=f"run-{number}",
                                                    input=LARGE_INPUT)["executionArn"])
            except ClientError as error:
                refused = (f"run-{number}", error)
                break
        assert refused is not None, f"the disk never filled in {STARTS_BOUND} starts"
        name, error = refused
        assert error.response["ResponseMetadata"]["HTTPStatusCode"] >= 500
        listed = [e["name"] for e in sfn.list_executions(stateMachineArn=machine)["executions"]]
        assert sorted(listed) == sorted(arn.rsplit(":", 1)[1] for arn in answered)  # no ghost of the refused one
        with pytest.raises(ClientError, match="ExecutionDoesNotExist"):
            sfn.describe_execution(executionArn=f"{machine.replace(':stateMachine:', ':execution:')}:{name}")
    finally:
        process.kill()
        process.wait(timeout=60)
    restarted = servers(tmp_path / "state", "--clock", "manual")
    sfn = make_client(restarted.endpoint_url)
    listed = [e["name"] for e in sfn.list_executions(stateMachineArn=machine)["executions"]]
    assert sorted(listed) == sorted(arn.rsplit(":", 1)[1] for arn in answered)
