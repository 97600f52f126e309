"""examples/ stays what the documentation says it is: its code is the README's and the docs pages',
CI runs it, and its workflow file runs tests that exist."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

from helpers.markdown_blocks import DOCS, fenced_blocks

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
# The pages whose Python samples are the examples' files, whole.
PAGES = ("README.md", "docs/pytest.md", "docs/in-process.md", "docs/swf.md", "docs/serverless-workflow.md",
         "docs/sm4c.md", "docs/stacks.md", "docs/events.md", "docs/replay.md", "docs/task-resources.md")
# The pages whose YAML sample is a fixture of examples/, whole.
FIXTURE_PAGES = {"docs/sm4c.md": "fixtures/order.sm4c.yaml", "docs/stacks.md": "sam-app/template.yaml",
                 "docs/serverless-workflow.md": "fixtures/order.workflow.yaml"}


def _blocks(page: str, language: str) -> list[str]:
    return fenced_blocks((ROOT / page).read_text(), language)


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_code_is_the_examples_code(page: str) -> None:
    blocks = [block for block in _blocks(page, "python") if "http://127.0.0.1:8083" not in block]
    examples = [path.read_text() for path in EXAMPLES.glob("*.py")]
    assert blocks
    for block in blocks:
        assert block in examples, f"not a whole file of examples/: {block}"


@pytest.mark.parametrize(("page", "fixture"), FIXTURE_PAGES.items())
def test_the_pages_document_is_the_example_fixture(page: str, fixture: str) -> None:
    [block] = _blocks(page, "yaml")
    assert block == (EXAMPLES / fixture).read_text()


def test_every_readme_python_block_is_run_as_written() -> None:
    """A block is a whole file the suite runs (examples/), or a script scripts/readme_smoke.py runs
    against the default endpoint: an excerpt missing its imports cannot be either."""
    blocks = _blocks("README.md", "python")
    runnable = {path.read_text() for path in EXAMPLES.glob("*.py")}
    for block in blocks:
        assert block in runnable or "http://127.0.0.1:8083" in block, f"a README block nothing runs: {block}"


@pytest.mark.parametrize("path", ["README.md", "examples/README.md", "examples/github-actions.yml",
                                  *(f"docs/{page.name}" for page in sorted(DOCS.glob("*.md")))])
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
