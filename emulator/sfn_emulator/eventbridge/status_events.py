"""The "Step Functions Execution Status Change" event of an execution, as Step Functions puts it on
the default event bus of the execution's account and region (developer guide: "EventBridge (CloudWatch
Events) for Step Functions execution status changes"; EventBridge reference: "AWS Step Functions events").

- Only Standard executions emit them; Express executions do not.
- `source` is `aws.states`, `detail-type` the name above, `resources` the execution's ARN, `time` the
  clock time of the change.
- `detail` carries the execution as DescribeExecution describes it, dates in epoch milliseconds and
  every member present (null where the execution has no value yet): executionArn, stateMachineArn,
  name, status, startDate, stopDate, input, inputDetails, output, outputDetails, error, cause,
  redriveCount, redriveDate, redriveStatus, redriveStatusReason.
- Payload quota: when the escaped input and escaped output together exceed 248 KB the input is left
  out (`inputDetails.included` false); when the escaped output alone exceeds it, the output is too.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sfn_emulator.engine.execution import RUNNING, SUCCEEDED, Execution
from sfn_emulator.service.execution_answers import redrive_status

SOURCE = "aws.states"
DETAIL_TYPE = "Step Functions Execution Status Change"
PENDING_REDRIVE = "PENDING_REDRIVE"
PAYLOAD_QUOTA_BYTES = 248 * 1024


def _epoch_millis(moment: datetime | None) -> int | None:
    return None if moment is None else round(moment.timestamp() * 1000)


def _escaped_size(text: str | None) -> int:
    """Bytes of the text as it stands escaped inside the event's JSON."""
    return 0 if text is None else len(json.dumps(text).encode()) - 2


def status_change(execution: Execution, status: str, at: datetime) -> dict[str, Any]:
    """The event (as a PutEvents entry: Source, DetailType, Detail, Resources, Time) of `execution`
    entering `status` at clock time `at`."""
    output = execution.output if execution.status == SUCCEEDED else None
    output_size = _escaped_size(output)
    output_included = output_size <= PAYLOAD_QUOTA_BYTES
    input_included = _escaped_size(execution.input) + (output_size if output_included else 0) <= PAYLOAD_QUOTA_BYTES
    if status == RUNNING or status == PENDING_REDRIVE:
        redrivable, reason = "NOT_REDRIVABLE", f"Execution is {RUNNING} and cannot be redriven"
    else:
        redrivable, reason = redrive_status(execution, None, at)
    detail = {
        "executionArn": execution.arn,
        "stateMachineArn": execution.state_machine_arn,
        "name": execution.name,
        "status": status,
        "startDate": _epoch_millis(execution.start_date),
        "stopDate": None if status in (RUNNING, PENDING_REDRIVE) else _epoch_millis(execution.stop_date),
        "input": execution.input if input_included else None,
        "inputDetails": {"included": input_included},
        "output": output if output_included else None,
        "outputDetails": None if output is None else {"included": output_included},
        "error": execution.error,
        "cause": execution.cause,
        "redriveCount": execution.redrive_count,
        "redriveDate": _epoch_millis(execution.redrive_date),
        "redriveStatus": redrivable,
        "redriveStatusReason": reason,
    }
    return {"Source": SOURCE, "DetailType": DETAIL_TYPE, "Detail": json.dumps(detail),
            "Resources": [execution.arn], "Time": at.timestamp()}
