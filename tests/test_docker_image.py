"""The Docker image's files keep their contracts. (docker/podman-smoke.sh builds and runs the image
for real; these checks are the ones that need no container engine.)"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

from sfn_emulator.config import OPTIONS

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
HEALTHCHECK = ROOT / "docker" / "healthcheck.py"


def _instructions() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n", " ", DOCKERFILE)
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_base_image_is_a_build_argument_defaulting_to_python_slim():
    instructions = _instructions()
    assert instructions[0] == "ARG BASE_IMAGE=python:3.12-slim"
    stages = [line for line in instructions if line.startswith("FROM ")]
    assert stages and all(re.fullmatch(r"FROM \$\{BASE_IMAGE\}( AS \w+)?", line) for line in stages)


def test_the_image_serves_on_8083_as_a_non_root_user_with_a_health_check():
    instructions = _instructions()
    assert "EXPOSE 8083" in instructions
    assert any(line.startswith("USER ") and line != "USER root" for line in instructions)
    assert any(line.startswith("HEALTHCHECK ") and "healthcheck.py" in line for line in instructions)
    # Exec form, so the server is PID 1 and gets SIGTERM itself.
    assert 'ENTRYPOINT ["sfn-emulator"]' in instructions and 'CMD ["serve"]' in instructions


def test_every_variable_the_docker_docs_set_is_a_setting_of_the_emulator():
    docker_section = (ROOT / "docs" / "docker.md").read_text()
    known = {option.env for option in OPTIONS}
    set_in_docs = set(re.findall(r"-e (\w+)=", docker_section))
    set_in_image = {name for name in re.findall(r"\b([A-Z][A-Z_]+)=", " ".join(
        line for line in _instructions() if line.startswith("ENV "))) if name.startswith("SFN_")}
    assert set_in_docs and set_in_docs <= known
    assert set_in_image and set_in_image <= known


def _health_check(port: int) -> int:
    return subprocess.run([sys.executable, str(HEALTHCHECK)], env={"SFN_EMULATOR_PORT": str(port)},
                          capture_output=True, timeout=60).returncode


def test_the_health_check_passes_when_the_emulator_answers(emulator_server):
    assert _health_check(urlsplit(emulator_server.endpoint_url).port) == 0


def test_the_health_check_fails_when_nothing_listens():
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))  # bound, not listening: connections are refused
        assert _health_check(unused.getsockname()[1]) == 1


def test_ci_builds_and_runs_the_image():
    assert "bash docker/podman-smoke.sh" in (ROOT / ".ci" / "run").read_text().splitlines()


def _extras(requirement: str) -> set[str]:
    found = re.fullmatch(r"""["']?\.(?:\[([\w,-]+)\])?["']?""", requirement)
    assert found, f"the image installs {requirement!r}, not this project"
    return set(found.group(1).split(",")) if found.group(1) else set()


def test_the_image_installs_the_stacks_extra_and_no_other():
    """`serve --stack` in the container loads a mounted SAM/CloudFormation template (docker/podman-smoke.sh
    serves examples/sam-app/); the other extras would only make the image heavier."""
    [install] = [line for line in _instructions() if "pip install" in line]
    requirement = install.split("pip install", 1)[1].split("&&", 1)[0].split()[-1]
    defined = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert _extras(requirement) == {"stacks"} and "stacks" in defined


def test_the_smoke_test_serves_a_mounted_stack():
    smoke = (ROOT / "docker" / "podman-smoke.sh").read_text()
    assert '--volume "$ROOT/examples/sam-app:/stack:ro"' in smoke
    assert '"$IMAGE" serve --stack /stack/template.yaml' in smoke and '--stack-stage "$STACK_STAGE"' in smoke
