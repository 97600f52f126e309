"""How an execution appears in the control plane's answers: its data, outcome, references, redrive
status and billing, in AWS's member names and words (shared by the execution operations)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from sfn_emulator.engine.execution import RUNNING, SUCCEEDED, Execution, HistoryEvent
from sfn_emulator.engine.scheduling.history_writer import MAX_HISTORY_EVENTS
from sfn_emulator.protocol.history_events import is_details_key
from sfn_emulator.service.store import DELETING

REDRIVABLE_PERIOD = timedelta(days=14)
# Billing of EXPRESS executions: duration in 100 ms steps, memory in 64 MB steps (AWS's units).
_BILLED_MILLISECONDS_STEP = 100
_BILLED_MEGABYTES_STEP = 64

# Where an execution's input or output appears in history event details (dropped when
# GetExecutionHistory is asked for includeExecutionData=False).
_EXECUTION_DATA_KEYS = ("input", "output")


def data_details(execution: Execution, included_data: str | None) -> dict[str, Any]:
    """Input and output members of DescribeExecution and StartSyncExecution."""
    included = included_data != "METADATA_ONLY"
    details: dict[str, Any] = {"inputDetails": {"included": included}}
    if included:
        details["input"] = execution.input
    if execution.status == SUCCEEDED:
        details["outputDetails"] = {"included": included}
        if included and execution.output is not None:
            details["output"] = execution.output
    return details


def outcome(execution: Execution) -> dict[str, Any]:
    """stopDate, error and cause, when the execution has them."""
    outcome: dict[str, Any] = {}
    for key, value in (("stopDate", execution.stop_date), ("error", execution.error), ("cause", execution.cause)):
        if value is not None:
            outcome[key] = value
    return outcome


def references(execution: Execution) -> dict[str, Any]:
    """The version and alias an execution ran through, when it did."""
    references: dict[str, Any] = {}
    if execution.state_machine_version_arn is not None:
        references["stateMachineVersionArn"] = execution.state_machine_version_arn
    if execution.state_machine_alias_arn is not None:
        references["stateMachineAliasArn"] = execution.state_machine_alias_arn
    return references


def redrive_status(execution: Execution, machine_status: str | None, now: datetime) -> tuple[str, str | None]:
    """DescribeExecution's redriveStatus and redriveStatusReason, in AWS's words."""
    if machine_status == DELETING:
        return "NOT_REDRIVABLE", "State machine is in DELETING status"
    if execution.status in (RUNNING, SUCCEEDED) or execution.stop_date is None:
        return "NOT_REDRIVABLE", f"Execution is {execution.status} and cannot be redriven"
    if now - execution.stop_date > REDRIVABLE_PERIOD:
        return "NOT_REDRIVABLE", "Execution redrivable period exceeded"
    if len(execution.history) >= MAX_HISTORY_EVENTS:
        return "NOT_REDRIVABLE", "Execution history event limit exceeded"
    return "REDRIVABLE", None


def billing(execution: Execution) -> dict[str, int]:
    """billingDetails of a synchronous EXPRESS execution, from its duration and data size."""
    stop = execution.stop_date or execution.start_date
    milliseconds = (stop - execution.start_date) / timedelta(milliseconds=1)
    steps = max(1, math.ceil(milliseconds / _BILLED_MILLISECONDS_STEP))
    data_megabytes = (len(execution.input.encode()) + len((execution.output or "").encode())) / 2**20
    memory_steps = max(1, math.ceil(data_megabytes / _BILLED_MEGABYTES_STEP))
    return {
        "billedMemoryUsedInMB": memory_steps * _BILLED_MEGABYTES_STEP,
        "billedDurationInMilliseconds": steps * _BILLED_MILLISECONDS_STEP,
    }


def without_execution_data(event: HistoryEvent) -> dict[str, Any]:
    stripped = event.as_dict()
    for key, value in stripped.items():
        if is_details_key(key) and isinstance(value, dict):
            stripped[key] = {k: v for k, v in value.items() if k not in _EXECUTION_DATA_KEYS}
    return stripped
