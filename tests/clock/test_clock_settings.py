"""The clock's and the retention's settings: flags, environment variables, bad values."""

from __future__ import annotations

import argparse

import pytest

from sfn_emulator.config import Settings, SettingsError, add_arguments


def parsed(*argv: str) -> Settings:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return Settings.from_sources(vars(parser.parse_args(argv)), {})


def test_defaults() -> None:
    settings = Settings()
    assert (settings.clock_skip_external_deadlines, settings.execution_retention_days) == (False, 0)


@pytest.mark.parametrize(("text", "value"), [("true", True), ("1", True), ("YES", True), ("false", False),
                                             ("0", False), ("no", False)])
def test_skipping_external_deadlines_from_the_environment(text: str, value: bool) -> None:
    settings = Settings.from_sources({}, {"SFN_EMULATOR_CLOCK_SKIP_EXTERNAL_DEADLINES": text})
    assert settings.clock_skip_external_deadlines is value


def test_skipping_external_deadlines_as_a_switch_or_with_a_value() -> None:
    assert parsed("--clock-skip-external-deadlines").clock_skip_external_deadlines is True
    assert parsed("--clock-skip-external-deadlines", "false").clock_skip_external_deadlines is False
    assert parsed().clock_skip_external_deadlines is False


def test_retention_days_from_a_flag_and_the_environment() -> None:
    assert parsed("--execution-retention-days", "7").execution_retention_days == 7
    assert Settings.from_sources({}, {"SFN_EMULATOR_EXECUTION_RETENTION_DAYS": "0"}).execution_retention_days == 0


@pytest.mark.parametrize(("variable", "text"), [
    ("SFN_EMULATOR_CLOCK_SKIP_EXTERNAL_DEADLINES", "maybe"),
    ("SFN_EMULATOR_EXECUTION_RETENTION_DAYS", "-1"),
    ("SFN_EMULATOR_EXECUTION_RETENTION_DAYS", "ninety"),
])
def test_a_bad_value_names_its_variable(variable: str, text: str) -> None:
    with pytest.raises(SettingsError, match=variable):
        Settings.from_sources({}, {variable: text})
