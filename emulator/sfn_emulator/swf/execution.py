"""A workflow execution and the work it has open: its decision task, activity tasks, timers,
Lambda functions and child executions. Plain records; `workflows` and `decisions` change them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from msgspec import Struct, field

from sfn_emulator.engine.scheduling.timers import Timer
from sfn_emulator.swf.history import History
from sfn_emulator.swf.registry import Domain

OPEN, CLOSED = "OPEN", "CLOSED"


def parse_duration(text: str | None) -> float | None:
    """SWF's durations are whole seconds as text, or "NONE" for no limit."""
    if text is None or text == "NONE":
        return None
    return float(int(text))


class DecisionTask(Struct, eq=False):
    scheduled_event_id: int
    task_list: str
    token: str | None = None  # given out when a decider takes the task
    started_event_id: int = 0
    timer: Timer | None = None


class ActivityTask(Struct, eq=False):
    activity_id: str
    activity_type: dict[str, str]
    input: str | None
    task_list: str
    scheduled_event_id: int
    schedule_to_start: float | None
    schedule_to_close: float | None
    start_to_close: float | None
    heartbeat: float | None
    token: str | None = None
    started_event_id: int = 0
    cancel_requested_event_id: int = 0  # ActivityTaskCancelRequested's, once the decider asked
    details: str | None = None  # of the last heartbeat
    timers: dict[str, Timer] = field(default_factory=dict)  # timeout type -> its timer


class OpenTimer(Struct, eq=False):
    timer_id: str
    started_event_id: int
    timer: Timer


class OpenLambda(Struct, eq=False):
    lambda_id: str
    scheduled_event_id: int
    started_event_id: int = 0
    closed: bool = False
    timer: Timer | None = None


class WorkflowExecution(Struct, eq=False):
    domain: Domain
    account: str
    region: str
    workflow_id: str
    run_id: str
    workflow_type: dict[str, str]
    task_list: str
    task_priority: str | None
    input: str | None
    execution_timeout: str  # executionStartToCloseTimeout, seconds as text
    task_timeout: str  # taskStartToCloseTimeout
    child_policy: str
    tag_list: list[str]
    lambda_role: str | None
    start_timestamp: datetime
    parent: WorkflowExecution | None = None
    parent_initiated_event_id: int | None = None
    history: History = field(default_factory=History)
    status: str = OPEN
    close_status: str | None = None
    close_timestamp: datetime | None = None
    cancel_requested: bool = False
    latest_execution_context: str | None = None
    latest_activity_task_timestamp: datetime | None = None
    decision_task_list: str | None = None  # RespondDecisionTaskCompleted's override
    decision_schedule_to_start: float | None = None  # its taskListScheduleToStartTimeout
    scheduled_decision: DecisionTask | None = None
    started_decision: DecisionTask | None = None
    activities: dict[str, ActivityTask] = field(default_factory=dict)  # open, by activityId
    timers: dict[str, OpenTimer] = field(default_factory=dict)  # open, by timerId
    lambdas: dict[str, OpenLambda] = field(default_factory=dict)  # open, by id
    children: dict[int, WorkflowExecution] = field(default_factory=dict)  # open, by initiatedEventId
    child_started_event_ids: dict[int, int] = field(default_factory=dict)  # initiatedEventId -> ChildWorkflowExecutionStarted
    deadline: Timer | None = None
    deadline_raced: bool = False  # is the deadline set as one someone outside races?

    @property
    def reference(self) -> dict[str, str]:
        return {"workflowId": self.workflow_id, "runId": self.run_id}

    @property
    def is_open(self) -> bool:
        return self.status == OPEN

    def waits_for_outside(self) -> bool:
        """Is a decider or worker expected to answer (a decision or activity task is open)?"""
        return bool(self.scheduled_decision or self.started_decision or self.activities)

    def info(self) -> dict[str, Any]:
        """A WorkflowExecutionInfo."""
        info: dict[str, Any] = {"execution": self.reference, "workflowType": self.workflow_type,
                                "startTimestamp": self.start_timestamp, "executionStatus": self.status,
                                "cancelRequested": self.cancel_requested}
        if self.close_timestamp is not None:
            info["closeTimestamp"] = self.close_timestamp
        if self.close_status is not None:
            info["closeStatus"] = self.close_status
        if self.parent is not None:
            info["parent"] = self.parent.reference
        if self.tag_list:
            info["tagList"] = list(self.tag_list)
        return info

    def configuration(self) -> dict[str, Any]:
        configuration: dict[str, Any] = {"taskStartToCloseTimeout": self.task_timeout,
                                         "executionStartToCloseTimeout": self.execution_timeout,
                                         "taskList": {"name": self.task_list}, "childPolicy": self.child_policy}
        if self.task_priority is not None:
            configuration["taskPriority"] = self.task_priority
        if self.lambda_role is not None:
            configuration["lambdaRole"] = self.lambda_role
        return configuration

    def open_counts(self) -> dict[str, int]:
        return {"openActivityTasks": len(self.activities),
                "openDecisionTasks": int(bool(self.scheduled_decision or self.started_decision)),
                "openTimers": len(self.timers), "openChildWorkflowExecutions": len(self.children),
                "openLambdaFunctions": len(self.lambdas)}
