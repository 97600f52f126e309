"""sfn-emulator: a local emulator of AWS Step Functions for fast, faithful workflow tests."""

__version__ = "0.1.0"
