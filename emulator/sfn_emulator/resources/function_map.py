"""The functions map (`--functions FILE`): a JSON or YAML object of Lambda function name or ARN to the
Python callable that serves it, `path/to/file.py:callable` or `package.module:callable`, or an object
`{"handler": ..., "timeout": seconds}` for a function with its own function timeout.

A new user writes the map next to their code and runs the command from their project, so module
entries import from the map's directory and the working directory (in that order, before the rest of
`sys.path`); an entry that does not import says where it was looked for and what else to write.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from msgspec import Struct

from sfn_emulator.resources.lambda_runtime import Handler, check_timeout


class MappedFunction(Struct, frozen=True):
    """A callable with its own function timeout (None: the emulator's default)."""

    handler: Handler
    timeout_seconds: float | None = None


class FunctionMapError(ValueError):
    """A functions map file that cannot be loaded; the message says which entry and why."""


def load_function_map(path: str | Path) -> dict[str, MappedFunction]:
    """Load a JSON or YAML object {function name or ARN: entry}. An entry is the handler's place,
    "pkg.module:callable" or "path/file.py:callable", or an object {"handler": place, "timeout":
    seconds} for a function with its own timeout."""
    import yaml  # here: most runs have no functions map

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise FunctionMapError(f"cannot read the functions map {path}: {exc}") from None
    if not isinstance(data, dict):
        raise FunctionMapError(f"the functions map {path} must be an object of function name or ARN -> "
                               "'file.py:callable' or 'package.module:callable'")
    return {str(key): _mapped_function(entry, path.parent, key) for key, entry in data.items()}


def _mapped_function(entry: Any, base: Path, key: object) -> MappedFunction:
    if not isinstance(entry, dict):
        return MappedFunction(_import_handler(str(entry), base, key))
    unknown = sorted(set(entry) - {"handler", "timeout"})
    if unknown or not isinstance(entry.get("handler"), str):
        raise FunctionMapError(f"functions map entry {key!r}: an object entry is {{\"handler\": \"module:callable\", "
                               f"\"timeout\": seconds}}" + (f"; unknown key(s) {', '.join(map(str, unknown))}" if unknown else ""))
    timeout = entry.get("timeout")
    if timeout is not None:
        try:
            timeout = check_timeout(timeout, "its timeout")
        except ValueError as exc:
            raise FunctionMapError(f"functions map entry {key!r}: {exc}") from None
    return MappedFunction(_import_handler(entry["handler"], base, key), timeout)


def search_path(base: Path) -> list[str]:
    """Where module entries are imported from: the map's directory, the working directory, sys.path."""
    first = list(dict.fromkeys([str(base.resolve()), str(Path.cwd())]))
    return first + [entry for entry in sys.path if entry not in first]


def _import_handler(target: str, base: Path, key: object) -> Handler:
    module_ref, sep, attribute = target.rpartition(":")
    if not sep or not module_ref or not attribute:
        raise FunctionMapError(f"functions map entry {key!r}: {target!r} is not 'file.py:callable' (relative to "
                               "the map) or 'package.module:callable'")
    try:
        module = _load_file(module_ref, base, key) if module_ref.endswith(".py") else _load_module(module_ref, base)
    except FunctionMapError:
        raise
    except ModuleNotFoundError as exc:
        if exc.name is None or not module_ref.startswith(exc.name):  # the user's module itself imports something missing
            raise FunctionMapError(f"functions map entry {key!r}: importing {module_ref!r} failed: "
                                   f"{type(exc).__name__}: {exc}") from None
        places = search_path(base)
        raise FunctionMapError(
            f"functions map entry {key!r}: no module named {exc.name!r}; looked in the map's directory "
            f"{places[0]}, the working directory {str(Path.cwd())} and sys.path. Name the file instead, "
            f"relative to the map: '{module_ref.replace('.', '/')}.py:{attribute}'"
        ) from None
    except Exception as exc:  # an import error in user code must say which entry broke
        raise FunctionMapError(f"functions map entry {key!r}: cannot import {target!r}: "
                               f"{type(exc).__name__}: {exc}") from None
    handler = getattr(module, attribute, None)
    if handler is None:
        raise FunctionMapError(f"functions map entry {key!r}: {module_ref} has no attribute {attribute!r}")
    if not callable(handler):
        raise FunctionMapError(f"functions map entry {key!r}: {target!r} is not callable")
    return handler


def _load_module(module_ref: str, base: Path) -> ModuleType:
    """Import with the map's directory and the working directory first on sys.path; they stay on it,
    so the handler's own imports at call time find its sibling modules too."""
    for entry in reversed(search_path(base)[:2]):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    importlib.invalidate_caches()
    return importlib.import_module(module_ref)


def _load_file(module_ref: str, base: Path, key: object) -> ModuleType:
    file = (base / module_ref).resolve()
    if not file.is_file():
        raise FunctionMapError(f"functions map entry {key!r}: there is no file {file} (a file is named relative to "
                               f"the map's directory, {base.resolve()})")
    module_name = f"sfn_emulator_functions_{abs(hash(str(file)))}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, file)
        if spec is None or spec.loader is None:
            raise FunctionMapError(f"functions map entry {key!r}: cannot load {file}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]  # a fixed file is loaded afresh next time
            raise
    return module
