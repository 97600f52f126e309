"""Workflow coverage: which states, transitions, Choice rules, Catchers and Retriers the executions
of a test suite (or of a server's life) exercised, per state machine."""

from sfn_emulator.coverage.model import CoverageReport, MachineCoverage, merge_reports
from sfn_emulator.coverage.recorder import CoverageRecorder

__all__ = ["CoverageRecorder", "CoverageReport", "MachineCoverage", "merge_reports"]
