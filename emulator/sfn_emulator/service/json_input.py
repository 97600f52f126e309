"""Execution input must be JSON text; a refusal names the problem in the words AWS uses.

Recorded on AWS: `Invalid State Machine Execution Input: 'Unrecognized token 'not': was expecting
(JSON String, Number, Array, Object or token 'null', 'true' or 'false')'`; the quoted part is
Jackson's complaint, worded by `asl.json_reading` for definitions and inputs alike.
"""

from __future__ import annotations

from typing import Any

from sfn_emulator.asl.json_reading import JsonTextError, read_json
from sfn_emulator.service.errors import InvalidExecutionInput


def read_execution_input(text: str) -> Any:
    """The JSON value of an execution input; `InvalidExecutionInput` unless `text` is JSON text."""
    if not text.strip():
        raise InvalidExecutionInput("Invalid State Machine Execution Input: 'Invalid execution input.'")
    try:
        return read_json(text)
    except JsonTextError as problem:
        raise InvalidExecutionInput(f"Invalid State Machine Execution Input: '{problem.message}'") from None
