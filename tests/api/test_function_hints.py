"""A Lambda function nothing serves fails as on AWS, and the log says how to serve it in the terms of
the way in use (the CLI's are in fixtures/cli/run.json)."""

from __future__ import annotations

import logging
import uuid

import pytest

from sfn_emulator import run_definition

BASE_LOGGER = "sfn_emulator.resources.base"


def calling(function: str) -> dict:
    return {"StartAt": "Call", "States": {"Call": {
        "Type": "Task", "Resource": f"arn:aws:lambda:us-east-1:123456789012:function:{function}", "End": True}}}


def hints(caplog: pytest.LogCaptureFixture, function: str) -> list[str]:
    return [record.getMessage().split(": ", 1)[1] for record in caplog.records if function in record.getMessage()]


def test_run_definition_says_pass_functions(caplog: pytest.LogCaptureFixture) -> None:
    function = f"unserved-{uuid.uuid4().hex[:8]}"
    with caplog.at_level(logging.WARNING, logger=BASE_LOGGER):
        run_definition(calling(function)).assert_failed(error="Lambda.ResourceNotFoundException")
    assert hints(caplog, function) == ["pass `functions={name: handler}` to run_definition."]


def test_the_pytest_plugin_says_register(sfn_emulator, caplog: pytest.LogCaptureFixture) -> None:
    function = f"unserved-{uuid.uuid4().hex[:8]}"
    with caplog.at_level(logging.WARNING, logger=BASE_LOGGER):
        sfn_emulator.run(calling(function)).assert_failed(error="Lambda.ResourceNotFoundException")
    assert hints(caplog, function) == ["call `sfn_emulator.register(name_or_arn, handler)` in the test."]
