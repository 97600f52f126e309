"""Which executions ListOpen/ListClosed/CountOpen/CountClosedWorkflowExecutions see: every filter
of the API (start and close time, workflowId, type name and version, tag, close status), newest
start first (reverseOrder: oldest first), as SWF lists them."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sfn_emulator.swf.execution import WorkflowExecution
from sfn_emulator.swf.faults import SwfValidationException

EXCLUSIVE_FILTERS = ("executionFilter", "typeFilter", "tagFilter", "closeStatusFilter")


def matching(executions: list[WorkflowExecution], params: dict[str, Any], *, open_ones: bool) -> list[WorkflowExecution]:
    """The executions the request's filters select, newest start first."""
    given = [name for name in EXCLUSIVE_FILTERS if name in params]
    if len(given) > 1:
        # The API reference: executionFilter, typeFilter, tagFilter and closeStatusFilter are mutually exclusive.
        raise SwfValidationException("executionFilter, typeFilter, tagFilter and closeStatusFilter are mutually "
                                     "exclusive. You can specify at most one of these in a request.")
    if not open_ones and "startTimeFilter" in params and "closeTimeFilter" in params:
        raise SwfValidationException("startTimeFilter and closeTimeFilter are mutually exclusive")
    if not open_ones and "startTimeFilter" not in params and "closeTimeFilter" not in params:
        raise SwfValidationException("Either startTimeFilter or closeTimeFilter must be specified")
    found = [execution for execution in executions
             if execution.is_open == open_ones and _selected(execution, params)]
    return sorted(found, key=lambda execution: execution.start_timestamp, reverse=True)


def _selected(execution: WorkflowExecution, params: dict[str, Any]) -> bool:
    if not _in_range(execution.start_timestamp, params.get("startTimeFilter")):
        return False
    if not _in_range(execution.close_timestamp, params.get("closeTimeFilter")):
        return False
    if "executionFilter" in params and execution.workflow_id != params["executionFilter"]["workflowId"]:
        return False
    type_filter = params.get("typeFilter")
    if type_filter is not None and (execution.workflow_type["name"] != type_filter["name"] or
                                    type_filter.get("version") not in (None, execution.workflow_type["version"])):
        return False
    if "tagFilter" in params and params["tagFilter"]["tag"] not in execution.tag_list:
        return False
    if "closeStatusFilter" in params and execution.close_status != params["closeStatusFilter"]["status"]:
        return False
    return True


def _in_range(moment: datetime | None, time_filter: dict[str, Any] | None) -> bool:
    if time_filter is None:
        return True
    if moment is None:
        return False
    oldest, latest = _instant(time_filter["oldestDate"]), _instant(time_filter.get("latestDate"))
    return oldest <= moment and (latest is None or moment <= latest)


def _instant(value: Any) -> Any:
    """Timestamps arrive as epoch seconds (botocore's JSON protocol)."""
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromtimestamp(float(value), timezone.utc)
