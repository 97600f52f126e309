"""Execution logs in CloudWatch Logs, as a state machine's logging configuration asks for them.

AWS's rules (developer guide, "Logging in CloudWatch Logs" and its "Log levels" table):
- ALL logs every history event; ERROR the events that report something going wrong, every
  `…Failed`, `…TimedOut` and `…Aborted` event (ExecutionFailed, TaskFailed, TaskTimedOut,
  MapIterationAborted, ...) and FailStateEntered; FATAL only the execution's own end when it did
  not succeed (ExecutionFailed, ExecutionTimedOut, ExecutionAborted); OFF nothing.
- Each log event's message is one JSON object: `id`, `type`, `details` (the event's details),
  `previous_event_id`, `event_timestamp` (epoch milliseconds), `execution_arn` and `redrive_count`,
  every scalar written as text. Without `includeExecutionData` the details lose their `input` and
  `output`, as GetExecutionHistory's do with `includeExecutionData: false`.
- STANDARD and EXPRESS executions alike: for EXPRESS executions the logs are the only record.
The emulator writes an execution's log events when it ends (its whole history at once; a redriven
execution the events of its new run, with their `redrive_count`), stamped with
clock time, to the log stream `states/<machine name>/<start as YYYY-MM-DD-HH-MM>/<execution id>`
of the configured log group. The configuration that applies is the one the execution started with.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.engine.observers import EngineObserver
from sfn_emulator.protocol.history_events import EXECUTION_FAILURES, FAIL_STATE_ENTERED, details_of
from sfn_emulator.service.execution_answers import without_execution_data
from sfn_emulator.service.logging_configuration import LogGroup, LogGroups, destination_group

if TYPE_CHECKING:
    from sfn_emulator.engine.execution import Execution, HistoryEvent

_LOG = logging.getLogger(__name__)
ERROR_ENDINGS = ("Failed", "TimedOut", "Aborted")


def is_logged(level: str, event_type: str) -> bool:
    """Whether `level` logs history events of `event_type` (AWS's "Log levels")."""
    if level == "ALL":
        return True
    if level == "ERROR":
        return event_type.endswith(ERROR_ENDINGS) or event_type == FAIL_STATE_ENTERED
    if level == "FATAL":
        return event_type in EXECUTION_FAILURES
    return False


def log_message(event: HistoryEvent, execution: Execution, include_execution_data: bool) -> str:
    """One history event as AWS writes it to CloudWatch Logs."""
    described = event.as_dict() if include_execution_data else without_execution_data(event)
    details = details_of(described)
    message: dict[str, Any] = {"id": str(event.id), "type": event.type}
    if details is not None:
        message["details"] = details
    message.update({
        "previous_event_id": str(event.previous_event_id),
        "event_timestamp": str(_epoch_milliseconds(event)),
        "execution_arn": execution.arn,
        "redrive_count": str(execution.redrive_count),
    })
    return compact_json(message)


def _epoch_milliseconds(event: HistoryEvent) -> int:
    return int(event.timestamp.timestamp() * 1000)


def stream_name(execution: Execution) -> str:
    execution_id = execution.arn.rsplit(":", 1)[-1]
    return f"states/{execution.state_machine_name}/{execution.start_date:%Y-%m-%d-%H-%M}/{execution_id}"


class ExecutionLogs(EngineObserver):
    """Remembers which executions log where when they start; writes their logs when they end."""

    def __init__(self, log_groups: LogGroups | None) -> None:
        self.log_groups = log_groups
        # execution ARN -> (group, level, includeExecutionData, the first event of this run)
        self._logging: dict[str, tuple[LogGroup, str, bool, int]] = {}
        self._lock = threading.Lock()

    def started(self, execution: Execution, configuration: dict[str, Any]) -> None:
        """The execution starts, or is redriven: it logs its events from now on by `configuration`."""
        group = destination_group(configuration)
        if group is None or self.log_groups is None:
            return
        with self._lock:
            self._logging[execution.arn] = (group, configuration["level"], configuration["includeExecutionData"],
                                            len(execution.history))

    def execution_finished(self, execution: Execution) -> None:
        with self._lock:
            logging_to = self._logging.pop(execution.arn, None)
        if logging_to is None or self.log_groups is None:
            return
        group, level, include_data, first = logging_to
        events = [(_epoch_milliseconds(event), log_message(event, execution, include_data))
                  for event in execution.history[first:] if is_logged(level, event.type)]
        if not events:
            return
        try:
            self.log_groups.write(group, stream_name(execution), events)
        except Exception:  # a log group deleted meanwhile must not harm the engine
            _LOG.warning("could not write the logs of %s to log group %s", execution.arn, group.name, exc_info=True)
