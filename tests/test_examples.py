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
SECTIONS = ("Use it from pytest", "In-process mode", "Python API", "Amazon SWF", "Serverless Workflow", "SM4C",
            "Load your stack", "Events and schedules")


def _section(title: str) -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end]


@pytest.mark.parametrize("title", SECTIONS)
def test_the_readmes_code_is_the_examples_code(title: str) -> None:
    blocks = re.findall(r"```python\n(.*?)```", _section(title), flags=re.S)
    examples = [path.read_text() for path in EXAMPLES.glob("*.py")]
    assert blocks
    for block in blocks:
        assert block in examples, f"not a whole file of examples/: {block}"


def test_the_sm4c_sections_document_is_the_example_fixture() -> None:
    [block] = re.findall(r"```yaml\n(.*?)```", _section("SM4C"), flags=re.S)
    assert block == (EXAMPLES / "fixtures" / "order.sm4c.yaml").read_text()


def test_the_stack_sections_template_is_the_example_sam_app() -> None:
    [block] = re.findall(r"```yaml\n(.*?)```", _section("Load your stack"), flags=re.S)
    assert block == (EXAMPLES / "sam-app" / "template.yaml").read_text()


def test_every_readme_python_block_is_run_as_written() -> None:
    """A block is a whole file the suite runs (examples/), or a script scripts/readme_smoke.py runs
    against the default endpoint: an excerpt missing its imports cannot be either."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    runnable = {path.read_text() for path in EXAMPLES.glob("*.py")}
    for block in blocks:
        assert block in runnable or "http://127.0.0.1:8083" in block, f"a README block nothing runs: {block}"


@pytest.mark.parametrize("path", ["README.md", "examples/README.md", "examples/github-actions.yml"])
def test_no_instruction_installs_from_a_package_index(path: str) -> None:
    """sfn-emulator is not on a package index: it is installed from a clone or a git URL."""
    text = (ROOT / path).read_text()
    assert not re.search(r"pip install (-\S+ )*sfn-emulator\b", text)


def test_the_projects_test_command_runs_the_examples() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "examples" in config["testpaths"]


def test_the_example_workflow_runs_example_tests_that_exist() -> None:
    workflow = yaml.safe_load((EXAMPLES / "github-actions.yml").read_text())
    commands = [step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step]
    targets = [command.split("pytest", 1)[1].split() for command in commands if "-m pytest" in command]
    assert targets == [["examples"], ["examples/test_against_server.py"]]
    assert all((ROOT / path).exists() for paths in targets for path in paths)
