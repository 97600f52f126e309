"""`sfn-emulator serve` says what it does: a line per execution start and end at INFO (name, machine,
status, duration on the clock), a line per API call at DEBUG."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.helpers.clients import make_client
from tests.helpers.state_servers import BANNER, CONSOLE_SCRIPT, START_TIMEOUT

WAIT_A_DAY = {"StartAt": "Cool", "States": {"Cool": {"Type": "Wait", "Seconds": 86400, "Next": "Done"},
                                            "Done": {"Type": "Pass", "End": True}}}


def _serve_and_run(tmp_path: Path, level: str) -> list[str]:
    """The log lines of a server at `level` that ran one execution to its end, then stopped."""
    from sfn_emulator.config import OPTIONS

    log = tmp_path / "server.log"
    env = {name: value for name, value in os.environ.items() if name not in {option.env for option in OPTIONS}}
    with log.open("w") as out:
        process = subprocess.Popen([str(CONSOLE_SCRIPT), "serve", "--port", "0", "--log-level", level],
                                   stdout=out, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        url = _endpoint(log, process)
        sfn = make_client(url)
        machine = sfn.create_state_machine(name="Cooling", definition=json.dumps(WAIT_A_DAY),
                                           roleArn="arn:aws:iam::123456789012:role/r")["stateMachineArn"]
        execution = sfn.start_execution(stateMachineArn=machine, name="first")["executionArn"]
        _settle(url)
        assert sfn.describe_execution(executionArn=execution)["status"] == "SUCCEEDED"
    finally:
        process.terminate()
        process.wait(timeout=START_TIMEOUT)
    return log.read_text().splitlines()


def _endpoint(log: Path, process: subprocess.Popen[str]) -> str:
    """The URL from the banner, read from the log file once the server has written it."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline and process.poll() is None:
        for line in log.read_text().splitlines():
            if BANNER in line:
                return line.split(BANNER, 1)[1].split()[0]
        time.sleep(0.05)
    raise AssertionError("the server did not start:\n" + log.read_text())


def _settle(url: str) -> None:
    """Let the server settle (a clock move of zero seconds answers once nothing can run)."""
    request = urllib.request.Request(f"{url}/_emulator/clock", data=b'{"advance": 0}', method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=START_TIMEOUT):
        pass


def test_info_says_when_each_execution_starts_and_ends(tmp_path: Path) -> None:
    lines = _serve_and_run(tmp_path, "INFO")
    started = [line for line in lines if "execution started" in line]
    ended = [line for line in lines if "execution ended" in line]
    assert len(started) == 1 and started[0].endswith("execution started: first of "
                                                      "arn:aws:states:us-east-1:123456789012:stateMachine:Cooling")
    assert len(ended) == 1 and ended[0].endswith("execution ended: first of arn:aws:states:us-east-1:123456789012:"
                                                 "stateMachine:Cooling: SUCCEEDED after 86400.000 s on the clock")
    assert not any("StartExecution" in line for line in lines)  # API calls only at DEBUG


def test_debug_adds_a_line_per_api_call(tmp_path: Path) -> None:
    lines = _serve_and_run(tmp_path, "DEBUG")
    calls = [line.rsplit(": ", 2)[-2:] for line in lines if "AWSStepFunctions." in line]
    assert calls == [["AWSStepFunctions.CreateStateMachine", "200"], ["AWSStepFunctions.StartExecution", "200"],
                     ["AWSStepFunctions.DescribeExecution", "200"]]
