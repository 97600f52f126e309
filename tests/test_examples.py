"""examples/ stays what the README says it is: its code is the README's, CI runs it, and its
workflow file runs tests that exist."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SECTIONS = ("Use it from pytest", "In-process mode", "Python API")


def _section(title: str) -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end]


@pytest.mark.parametrize("title", SECTIONS)
def test_the_readmes_code_is_the_examples_code(title: str) -> None:
    blocks = re.findall(r"```python\n(.*?)```", _section(title), flags=re.S)
    examples = [path.read_text() for path in EXAMPLES.glob("test_*.py")]
    assert blocks
    for block in blocks:
        assert any(block in example for example in examples), f"not in examples/: {block}"


def test_the_projects_test_command_runs_the_examples() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "examples" in config["testpaths"]


def test_the_example_workflow_runs_example_tests_that_exist() -> None:
    workflow = yaml.safe_load((EXAMPLES / "github-actions.yml").read_text())
    commands = [step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step]
    targets = [command.split("pytest", 1)[1].split() for command in commands if "-m pytest" in command]
    assert targets == [["examples"], ["examples/test_against_server.py"]]
    assert all((ROOT / path).exists() for paths in targets for path in paths)
