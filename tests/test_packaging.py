"""The wheel ships every package of the source tree under project-specific names: no generic top-level
`emulator` or `plugins` module lands in site-packages."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _declared() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return config["packages"]


def test_every_emulator_package_is_declared() -> None:
    on_disk = {
        ".".join(("sfn_emulator", *init.parent.relative_to(ROOT / "emulator").parts))
        for init in (ROOT / "emulator").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert on_disk <= set(_declared())


def test_plugins_ship_under_a_project_specific_name() -> None:
    declared = _declared()
    assert not {"emulator", "plugins"} & {name.split(".")[0] for name in declared}
    assert "sfn_emulator_plugins" in declared
