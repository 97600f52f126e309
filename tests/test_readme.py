"""The README's set-up commands stay true: CI runs the README's test command verbatim."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _shell_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S)]


def test_ci_runs_the_readme_test_command() -> None:
    blocks = _shell_blocks((ROOT / "README.md").read_text())
    test_command = next(block for block in blocks if "pytest" in block)
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def test_readme_starts_the_server_on_its_defaults() -> None:
    blocks = _shell_blocks((ROOT / "README.md").read_text())
    assert any(block.endswith("sfn-emulator serve") and "pip install ." in block for block in blocks)
