"""A template's Python Lambda functions as callables, imported from their code directories.

Each function's code directory becomes a package of its own (`sfn_emulator_stack_<digest>`), so two
functions each with an `app.py` do not collide; the directory and the function's layers
(`python/` inside each, as Lambda mounts them at /opt/python) are also put on `sys.path`, where
Lambda puts /var/task and /opt/python, for the modules a handler imports by their plain names.
Environment.Variables are seen by the function's own calls (and by its module's import) through an
overlay of `os.environ` for the calling thread only: other functions and the rest of the process
keep their environment."""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Mapping

from sfn_emulator.resources.lambda_runtime import Handler


class FunctionImportError(Exception):
    """A handler that cannot be imported: the message says which and why."""


_overlay = threading.local()
_install_lock = threading.Lock()


class _ThreadEnviron(os._Environ):  # type: ignore[name-defined,misc]
    """os.environ, with the variables of the function running on this thread in front."""

    def _variables(self) -> Mapping[str, str]:
        return getattr(_overlay, "variables", None) or {}

    def __getitem__(self, key: str) -> str:
        variables = self._variables()
        return variables[key] if key in variables else super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        return key in self._variables() or super().__contains__(key)

    def __iter__(self) -> Iterator[str]:
        variables = self._variables()
        yield from variables
        yield from (key for key in super().__iter__() if key not in variables)

    def __len__(self) -> int:
        return len(set(self._variables()) | set(super().__iter__()))

    def copy(self) -> dict[str, str]:
        return dict(self)


def _install_overlay() -> None:
    """Make os.environ consult the calling thread's function variables (the same object stays os.environ)."""
    with _install_lock:
        if not isinstance(os.environ, _ThreadEnviron):
            os.environ.__class__ = _ThreadEnviron


@contextmanager
def function_environment(variables: Mapping[str, str]) -> Iterator[None]:
    """`variables` in os.environ for the calling thread while the block runs."""
    _install_overlay()
    previous = getattr(_overlay, "variables", None)
    _overlay.variables = {**(previous or {}), **variables}
    try:
        yield
    finally:
        _overlay.variables = previous


def layer_directories(content: Path) -> list[Path]:
    """Where Lambda's Python runtime finds a layer's modules: its `python/` folder (and that folder's
    site-packages), or, for a layer built flat, the layer itself."""
    python = content / "python"
    if not python.is_dir():
        return [content]
    return [python, *sorted(python.glob("lib/python3*/site-packages"))]


def load_handler(code: Path, handler: str, *, layers: list[Path], variables: Mapping[str, str]) -> Handler:
    """The callable `handler` ("package.module.function") names in `code`, imported with `variables`
    in the environment, wrapped so each call sees them too."""
    module_path, _, attribute = handler.rpartition(".")
    if not module_path or not attribute:
        raise FunctionImportError(f"Handler {handler!r} is not module.function")
    if not code.is_dir():
        raise FunctionImportError(f"the code directory {code} does not exist")
    for directory in [code, *[path for layer in layers for path in layer_directories(layer)]]:
        if str(directory) not in sys.path:
            sys.path.append(str(directory))
    package = _code_package(code)
    with function_environment(variables):
        try:
            module = importlib.import_module(f"{package}.{module_path.replace('/', '.')}")
        except Exception as error:  # the user's code: any import failure is reported, named
            raise FunctionImportError(f"importing {module_path} from {code} failed: "
                                      f"{type(error).__name__}: {error}") from None
    function = getattr(module, attribute, None)
    if not callable(function):
        raise FunctionImportError(f"{module_path} in {code} has no callable {attribute!r}")
    return _with_environment(function, dict(variables))


def _code_package(code: Path) -> str:
    """A package whose path is the code directory, under a name no other directory shares."""
    name = "sfn_emulator_stack_" + hashlib.sha256(str(code.resolve()).encode()).hexdigest()[:16]
    if name not in sys.modules:
        package = types.ModuleType(name)
        package.__path__ = [str(code.resolve())]
        sys.modules[name] = package
    return name


def _with_environment(function: Any, variables: dict[str, str]) -> Handler:
    def handler(event: Any, context: Any) -> Any:
        with function_environment(variables):
            return function(event, context)

    handler.__name__ = getattr(function, "__name__", "handler")
    handler.__qualname__ = getattr(function, "__qualname__", "handler")
    return handler
