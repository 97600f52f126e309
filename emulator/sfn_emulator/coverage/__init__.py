"""Workflow coverage: which states, transitions, Choice rules, Catchers and Retriers the executions
of a test suite (or of a server's life) exercised, per state machine."""

from __future__ import annotations

from typing import Any

# Imported on first use: every emulator records coverage, but the report's model (and the graph code
# under it) is needed only when a report is asked for.
_LAZY_EXPORTS = {
    "CoverageRecorder": "sfn_emulator.coverage.recorder",
    "CoverageReport": "sfn_emulator.coverage.model",
    "MachineCoverage": "sfn_emulator.coverage.model",
    "merge_reports": "sfn_emulator.coverage.model",
}
__all__ = ["CoverageRecorder", "CoverageReport", "MachineCoverage", "merge_reports"]


def __getattr__(name: str) -> Any:
    if name in _LAZY_EXPORTS:
        import importlib

        return getattr(importlib.import_module(_LAZY_EXPORTS[name]), name)
    raise AttributeError(f"module 'sfn_emulator.coverage' has no attribute {name!r}")
