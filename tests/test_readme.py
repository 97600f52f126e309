"""The README stays a short front door: its set-up commands are true (CI runs the test command verbatim,
scripts/readme_smoke.py follows the serve command) and everything else is a link into docs/."""

from __future__ import annotations

import re

from helpers.markdown_blocks import ROOT, fenced_blocks

README = ROOT / "README.md"


def _shell_blocks() -> list[str]:
    return [block.strip() for block in fenced_blocks(README.read_text(), "sh")]


def test_ci_runs_the_readme_test_command() -> None:
    test_command = next(block for block in _shell_blocks() if "pytest" in block)
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def test_readme_starts_the_server_on_its_defaults() -> None:
    assert any(block.endswith("sfn-emulator serve") and "pip install ." in block for block in _shell_blocks())


def test_the_readme_is_a_front_door_of_at_most_300_lines() -> None:
    assert len(README.read_text().splitlines()) <= 300


def test_every_link_of_the_readme_names_a_file_of_the_project() -> None:
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text())
    local = [target for target in targets if not re.match(r"\w+://", target)]
    assert local, "the README links into docs/"
    for target in local:
        assert (ROOT / target).exists(), f"the README links to {target}, which does not exist"
