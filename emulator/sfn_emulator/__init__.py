"""sfn-emulator: a local emulator of AWS Step Functions for fast, faithful workflow tests."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

# The public API, imported on first use so that `import sfn_emulator` (the CLI's --help) stays light.
_LAZY_EXPORTS = {
    "run_definition": "sfn_emulator.api",
    "ExecutionResult": "sfn_emulator.results.execution_result",
    "Emulator": "sfn_emulator.runtime",
    "Settings": "sfn_emulator.config",
}
__all__ = ["Emulator", "ExecutionResult", "Settings", "run_definition", "__version__"]


def __getattr__(name: str) -> Any:
    if name in _LAZY_EXPORTS:
        import importlib

        return getattr(importlib.import_module(_LAZY_EXPORTS[name]), name)
    raise AttributeError(f"module 'sfn_emulator' has no attribute {name!r}")
