"""The wheel ships every package of the source tree under project-specific names: no generic top-level
`emulator` or `plugins` module lands in site-packages, and each folder bears its import name."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest
from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[1]
SOURCE_ROOTS = {"emulator": "sfn_emulator", "plugins": "sfn_emulator_plugins"}


def _find_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]


@pytest.mark.parametrize(("folder", "import_name"), SOURCE_ROOTS.items())
def test_each_source_root_holds_one_folder_named_as_it_is_imported(folder: str, import_name: str) -> None:
    entries = {entry.name for entry in (ROOT / folder).iterdir()
               if entry.name != "__pycache__" and not entry.name.endswith(".egg-info")}
    assert entries == {import_name}
    assert _find_config()["where"] == list(SOURCE_ROOTS)


@pytest.mark.parametrize(("folder", "import_name"), SOURCE_ROOTS.items())
def test_every_folder_of_code_is_a_package_the_build_finds(folder: str, import_name: str) -> None:
    found = set(find_packages(where=str(ROOT / folder), include=_find_config()["include"]))
    with_code = {
        ".".join(module.parent.relative_to(ROOT / folder).parts)
        for module in (ROOT / folder / import_name).rglob("*.py") if "__pycache__" not in module.parts
    }
    assert with_code <= found
    assert {name.split(".")[0] for name in found} == {import_name}


@pytest.mark.parametrize(("folder", "import_name"), SOURCE_ROOTS.items())
def test_the_installed_name_is_the_folder(folder: str, import_name: str) -> None:
    spec = importlib.util.find_spec(import_name)
    assert spec is not None and spec.origin is not None
    assert Path(spec.origin).resolve() == ROOT / folder / import_name / "__init__.py"
