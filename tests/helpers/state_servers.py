"""`sfn-emulator serve` as a real process with a state directory, to kill with SIGKILL and start again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

CONSOLE_SCRIPT = Path(sys.executable).parent / "sfn-emulator"
BANNER = "serving AWS Step Functions on "
START_TIMEOUT = 120.0  # wall seconds for a loaded machine to start a server


@dataclass
class ServerProcess:
    process: subprocess.Popen[str]
    endpoint_url: str

    def kill(self) -> None:
        """SIGKILL: no chance to flush or close anything."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=60)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.kill()


def start_server(state_dir: Path, *args: str) -> ServerProcess:
    """`sfn-emulator serve --port 0 --state-dir DIR ...`, once it prints the URL it serves on."""
    from sfn_emulator.config import OPTIONS

    env = {name: value for name, value in os.environ.items() if name not in {option.env for option in OPTIONS}}
    process = subprocess.Popen([str(CONSOLE_SCRIPT), "serve", "--port", "0", "--state-dir", str(state_dir), *args],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert process.stdout is not None
    lines = []
    for line in process.stdout:  # bounded: the process ends (EOF) or prints the banner
        lines.append(line)
        if BANNER in line:
            url = line.split(BANNER, 1)[1].split()[0]
            # Drained from now on, so the server never blocks on a full pipe.
            threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()  # type: ignore[union-attr]
            return ServerProcess(process, url)
    process.wait(timeout=START_TIMEOUT)
    raise AssertionError("the server did not start:\n" + "".join(lines))


def post_json(url: str, body: bytes = b"{}", method: str = "POST") -> tuple[int, bytes]:
    """(status, body) of a request with a JSON body, as the /_emulator endpoints take them."""
    request = urllib.request.Request(url, data=body, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
