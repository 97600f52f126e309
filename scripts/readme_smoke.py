"""Follow the README as a new user would, on a fresh copy of the project.

    python scripts/readme_smoke.py

1. Copies the committed tree (`git archive HEAD`) to a temporary folder.
2. Runs the README's install-and-serve command there verbatim, in the background: it creates its
   own virtual environment, installs the project and starts `sfn-emulator serve` on its defaults.
3. Waits for `GET /_emulator/health`, then runs each Python block of the README that talks to the
   default endpoint in a fresh interpreter of that environment; each must exit 0.
4. Stops the server with SIGINT, as Ctrl-C does, and checks that it says it stopped.

Exits non-zero on the first step that fails. CI runs it after the test suite.
"""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ENDPOINT = "http://127.0.0.1:8083"
INSTALL_BUDGET = 600.0  # seconds for the install step to bring the server up
STOP_BUDGET = 15.0


def readme_blocks(project: Path, language: str) -> list[str]:
    text = (project / "README.md").read_text()
    return [block.strip() for block in re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)]


def serve_command(project: Path) -> str:
    commands = [block for block in readme_blocks(project, "sh")
                if block.endswith("sfn-emulator serve") and "pip install" in block]
    if len(commands) != 1:
        raise SystemExit("expected one README command that installs and ends in 'sfn-emulator serve', "
                         f"found {len(commands)}")
    return commands[0]


def copy_of_the_project(destination: Path) -> None:
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(destination, filter="data")


def healthy() -> bool:
    try:
        with urllib.request.urlopen(f"{DEFAULT_ENDPOINT}/_emulator/health", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


def wait_until_healthy(server: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + INSTALL_BUDGET
    while not healthy():
        if server.poll() is not None:
            raise SystemExit(f"the README's serve command ended with exit code {server.returncode}")
        if time.monotonic() > deadline:
            raise SystemExit(f"no healthy server on {DEFAULT_ENDPOINT} after {INSTALL_BUDGET:.0f} s")
        time.sleep(0.5)


def run_python_blocks(project: Path) -> int:
    python = project / ".venv" / "bin" / "python"
    blocks = [block for block in readme_blocks(project, "python") if DEFAULT_ENDPOINT in block]
    if not blocks:
        raise SystemExit(f"the README has no Python block that talks to {DEFAULT_ENDPOINT}")
    for number, block in enumerate(blocks, start=1):
        result = subprocess.run([str(python), "-c", block], cwd=project, capture_output=True, text=True, timeout=120)
        print(f"README Python block {number}: exit {result.returncode}\n{result.stdout}{result.stderr}", flush=True)
        if result.returncode != 0:
            raise SystemExit(f"README Python block {number} failed")
    return len(blocks)


def stop(server: subprocess.Popen[str]) -> str:
    os.killpg(server.pid, signal.SIGINT)
    try:
        output, _ = server.communicate(timeout=STOP_BUDGET)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        raise SystemExit(f"the server did not stop within {STOP_BUDGET:.0f} s of SIGINT") from None
    return output


def main() -> int:
    if healthy():
        raise SystemExit(f"something already answers on {DEFAULT_ENDPOINT}; stop it first")
    with tempfile.TemporaryDirectory(prefix="sfn-emulator-readme-") as folder:
        project = Path(folder)
        copy_of_the_project(project)
        command = serve_command(project)
        print(f"$ {command}", flush=True)
        server = subprocess.Popen(
            ["bash", "-c", command], cwd=project, text=True, start_new_session=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )
        try:
            wait_until_healthy(server)
            count = run_python_blocks(project)
        finally:
            output = stop(server) if server.poll() is None else ""
        if "sfn-emulator stopped." not in output:
            print(output[-3000:])
            raise SystemExit("the server did not report a clean stop")
    print(f"README smoke: installed and served by the README's command, {count} Python block(s) ran, clean stop")
    return 0


if __name__ == "__main__":
    sys.exit(main())
