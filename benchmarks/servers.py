"""The servers under test, each started as its own process on a free loopback port.

The peer is moto 5 with `execute_state_machine` switched on through its `/moto-api/config`
endpoint (its documented way in server mode); moto then runs definitions on its copy of
LocalStack's interpreter, with threads and real sleeps. moto's server needs `flask-cors`
(`pip install "moto[server]"`). The floor (`floor_server.py`) answers with canned bodies and
no engine: the cost of the HTTP and JSON alone.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import boto3
import botocore.exceptions
from botocore.config import Config

REPOSITORY = Path(__file__).resolve().parents[1]

Client = Any  # a boto3 Step Functions client


def make_client(endpoint_url: str) -> Client:
    """The one client configuration used against both servers."""
    return boto3.client(
        "stepfunctions",
        endpoint_url=endpoint_url,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
        config=Config(
            inject_host_prefix=False,  # else StartSyncExecution goes to sync-127.0.0.1
            retries={"total_max_attempts": 1},  # a failing call should show, not be retried
            read_timeout=120,
        ),
    )


@dataclass(frozen=True)
class ServerKind:
    """How to start one emulator as a server process on a given port."""

    name: str
    version: str
    command: Callable[[int], list[str]]
    environment: dict[str, str] = field(default_factory=dict)
    configure: Callable[[str], None] = lambda endpoint_url: None  # once it answers, before use

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}".strip()


def _enable_moto_execution(endpoint_url: str) -> None:
    body = json.dumps({"stepfunctions": {"execute_state_machine": True}}).encode()
    request = urllib.request.Request(f"{endpoint_url}/moto-api/config", data=body, method="POST")
    with urllib.request.urlopen(request, timeout=10):
        pass


def _emulator_version() -> str:
    import sfn_emulator

    return str(sfn_emulator.__version__)


def _moto_version() -> str:
    import moto

    return str(moto.__version__)


OURS = ServerKind(
    name="sfn-emulator",
    version=_emulator_version(),
    command=lambda port: [sys.executable, "-m", "sfn_emulator", "serve", "--port", str(port), "--log-level", "WARNING"],
)
FLOOR = ServerKind(
    name="no-engine floor",
    version="",
    command=lambda port: [sys.executable, str(Path(__file__).with_name("floor_server.py")), "--port", str(port)],
)
MOTO = ServerKind(
    name="moto",
    version=_moto_version(),
    command=lambda port: [sys.executable, "-m", "moto.server", "--port", str(port)],
    configure=_enable_moto_execution,
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RunningServer:
    """One server process and a client for it; a context manager that stops the process on exit."""

    def __init__(self, kind: ServerKind) -> None:
        self.kind = kind
        port = free_port()
        self.endpoint_url = f"http://127.0.0.1:{port}"
        self._log = tempfile.TemporaryFile()
        self._process = subprocess.Popen(
            kind.command(port),
            env={**os.environ, **kind.environment},
            cwd=REPOSITORY,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        self.client = make_client(self.endpoint_url)
        try:
            self._wait_until_answering()
            kind.configure(self.endpoint_url)
        except BaseException:
            self.stop()
            raise

    def _wait_until_answering(self, limit: float = 60.0) -> None:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                self._log.seek(0)
                output = self._log.read().decode(errors="replace")
                raise RuntimeError(f"the {self.kind.name} server exited at start-up:\n{output}")
            try:
                self.client.list_state_machines()
                return
            except botocore.exceptions.EndpointConnectionError:
                time.sleep(0.05)
        raise RuntimeError(f"the {self.kind.name} server did not answer within {limit:.0f} s")

    def rss_mib(self) -> float | None:
        """The server process's resident memory now (Linux), in MiB."""
        try:
            status = Path(f"/proc/{self._process.pid}/status").read_text()
        except OSError:
            return None
        kilobytes = next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")), None)
        return int(kilobytes) / 1024 if kilobytes else None

    def processor_seconds(self) -> float | None:
        """The processor time (user and system) the server process has used so far (Linux; in clock
        ticks of 10 ms): what a workload cost the server, without the waiting for a busy core."""
        try:
            fields = Path(f"/proc/{self._process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._log.close()

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
