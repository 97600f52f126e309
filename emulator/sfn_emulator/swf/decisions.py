"""RespondDecisionTaskCompleted: every decision type of the `Decision` reference, each failure
recorded as SWF records it (`...Failed` events with its cause values), and the events that follow.

The rules, from the API reference:
- DecisionTaskCompleted comes first; each decision's events name it by `decisionTaskCompletedEventId`.
- A decision that closes the execution (complete, fail, cancel, continue as new) must be the last of
  the list: otherwise the whole request is refused with ValidationException "Close must be last
  decision in list" (AWS's words, captured from the live service in moto's suite), before anything
  is recorded, and the decision task stays open for the decider to answer again.
- A decision that closes the execution fails with UNHANDLED_DECISION when new events arrived while
  the decision task ran (a decision task is scheduled again meanwhile).
- Defaults come from the registered activity or workflow type; a default neither given nor
  registered fails the decision with the matching `DEFAULT_..._UNDEFINED` cause.
- A failed decision, like any event the decider must see, schedules a new decision task.
"""

from __future__ import annotations

from typing import Any, Callable

from sfn_emulator.swf.execution import ActivityTask, OpenLambda, OpenTimer, WorkflowExecution, parse_duration
from sfn_emulator.swf.faults import SwfValidationException, UnknownResourceFault, WorkflowExecutionAlreadyStartedFault
from sfn_emulator.swf.registry import ACTIVITY, DEPRECATED
from sfn_emulator.swf.workflows import StartProblem, Workflows, resolve_start

DEFAULT_LAMBDA_TIMEOUT = "300"  # ScheduleLambdaFunction's startToCloseTimeout when none is given


def attributes_member(decision_type: str) -> str:
    """`StartTimer` -> `startTimerDecisionAttributes`."""
    return decision_type[0].lower() + decision_type[1:] + "DecisionAttributes"


def check_attributes(decisions: list[dict[str, Any]]) -> None:
    """Each decision carries the attributes of its type (Coral's message when one is missing)."""
    problems = [f"Value null at 'decisions.{index}.member.{attributes_member(decision['decisionType'])}' "
                "failed to satisfy constraint: Member must not be null"
                for index, decision in enumerate(decisions, start=1)
                if decision["decisionType"] not in CLOSING_DECISIONS
                and attributes_member(decision["decisionType"]) not in decision]
    if problems:
        count = len(problems)
        raise SwfValidationException(f"{count} validation error{'s' if count > 1 else ''} detected: {'; '.join(problems)}")


def check_close_is_last(decisions: list[dict[str, Any]]) -> None:
    """No decision follows one that closes the execution."""
    if any(decision["decisionType"] in CLOSING_DECISIONS for decision in decisions[:-1]):
        raise SwfValidationException("Close must be last decision in list")


# The decisions that close the execution; they may also come without attributes (every member of
# theirs is optional).
CLOSING_DECISIONS = frozenset({"CompleteWorkflowExecution", "FailWorkflowExecution", "CancelWorkflowExecution",
                               "ContinueAsNewWorkflowExecution"})


class DecisionBatch:
    """The decisions of one completed decision task, applied in order."""

    def __init__(self, workflows: Workflows, execution: WorkflowExecution, completed_event_id: int) -> None:
        self.workflows = workflows
        self.execution = execution
        self.completed_id = completed_event_id
        self.needs_decision = False  # events the decider must see were recorded
        self._handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "ScheduleActivityTask": self.schedule_activity_task,
            "RequestCancelActivityTask": self.request_cancel_activity_task,
            "CompleteWorkflowExecution": self.complete,
            "FailWorkflowExecution": self.fail,
            "CancelWorkflowExecution": self.cancel,
            "ContinueAsNewWorkflowExecution": self.continue_as_new,
            "RecordMarker": self.record_marker,
            "StartTimer": self.start_timer,
            "CancelTimer": self.cancel_timer,
            "SignalExternalWorkflowExecution": self.signal_external,
            "RequestCancelExternalWorkflowExecution": self.request_cancel_external,
            "StartChildWorkflowExecution": self.start_child,
            "ScheduleLambdaFunction": self.schedule_lambda,
        }

    def apply(self, decisions: list[dict[str, Any]]) -> None:
        for decision in decisions:
            if not self.execution.is_open:
                break  # a closing decision ended the execution
            decision_type = decision["decisionType"]
            self._handlers[decision_type](decision.get(attributes_member(decision_type), {}))

    def _event(self, event_type: str, **attributes: Any) -> int:
        return self.execution.history.add(event_type, self.workflows.clock.now(), **attributes)

    def _failed(self, event_type: str, **attributes: Any) -> None:
        self._event(event_type, decisionTaskCompletedEventId=self.completed_id, **attributes)
        self.needs_decision = True

    # -- activities ------------------------------------------------------------------------------
    def schedule_activity_task(self, attributes: dict[str, Any]) -> None:
        activity_type, activity_id = attributes["activityType"], attributes["activityId"]

        def failed(cause: str) -> None:
            self._failed("ScheduleActivityTaskFailed", activityType=activity_type, activityId=activity_id, cause=cause)

        registered = self.execution.domain.find_type(ACTIVITY, activity_type)
        if registered is None:
            return failed("ACTIVITY_TYPE_DOES_NOT_EXIST")
        if registered.status == DEPRECATED:
            return failed("ACTIVITY_TYPE_DEPRECATED")
        if activity_id in self.execution.activities:
            return failed("ACTIVITY_ID_ALREADY_IN_USE")
        resolved: dict[str, Any] = {}
        for member, default, cause in (
            ("taskList", "defaultTaskList", "DEFAULT_TASK_LIST_UNDEFINED"),
            ("scheduleToCloseTimeout", "defaultTaskScheduleToCloseTimeout", "DEFAULT_SCHEDULE_TO_CLOSE_TIMEOUT_UNDEFINED"),
            ("scheduleToStartTimeout", "defaultTaskScheduleToStartTimeout", "DEFAULT_SCHEDULE_TO_START_TIMEOUT_UNDEFINED"),
            ("startToCloseTimeout", "defaultTaskStartToCloseTimeout", "DEFAULT_START_TO_CLOSE_TIMEOUT_UNDEFINED"),
        ):
            value = attributes.get(member, registered.default(default))
            if value is None:
                return failed(cause)
            resolved[member] = value
        heartbeat = attributes.get("heartbeatTimeout", registered.default("defaultTaskHeartbeatTimeout"))
        priority = attributes.get("taskPriority", registered.default("defaultTaskPriority"))
        event_id = self._event(
            "ActivityTaskScheduled", activityType=activity_type, activityId=activity_id, input=attributes.get("input"),
            control=attributes.get("control"), scheduleToStartTimeout=resolved["scheduleToStartTimeout"],
            scheduleToCloseTimeout=resolved["scheduleToCloseTimeout"], startToCloseTimeout=resolved["startToCloseTimeout"],
            taskList=resolved["taskList"], taskPriority=priority, decisionTaskCompletedEventId=self.completed_id,
            heartbeatTimeout=heartbeat)
        task = ActivityTask(activity_id, activity_type, attributes.get("input"), resolved["taskList"]["name"], event_id,
                            parse_duration(resolved["scheduleToStartTimeout"]), parse_duration(resolved["scheduleToCloseTimeout"]),
                            parse_duration(resolved["startToCloseTimeout"]), parse_duration(heartbeat))
        self.workflows.schedule_activity(self.execution, task, priority)

    def request_cancel_activity_task(self, attributes: dict[str, Any]) -> None:
        activity_id = attributes["activityId"]
        task = self.execution.activities.get(activity_id)
        if task is None:
            return self._failed("RequestCancelActivityTaskFailed", activityId=activity_id, cause="ACTIVITY_ID_UNKNOWN")
        requested = self._event("ActivityTaskCancelRequested", decisionTaskCompletedEventId=self.completed_id,
                                activityId=activity_id)
        if task.token is None:  # not yet taken by a worker: canceled at once
            self.workflows.close_activity(self.execution, task, "ActivityTaskCanceled", latestCancelRequestedEventId=requested)
            self.needs_decision = True
        else:  # the worker hears of it from RecordActivityTaskHeartbeat
            task.cancel_requested_event_id = requested

    # -- closing the execution -----------------------------------------------------------------------
    def _unhandled(self, failed_event: str) -> bool:
        """New events arrived while the decision task ran: a closing decision fails."""
        if self.execution.scheduled_decision is None:
            return False
        self._failed(failed_event, cause="UNHANDLED_DECISION")
        return True

    def complete(self, attributes: dict[str, Any]) -> None:
        if not self._unhandled("CompleteWorkflowExecutionFailed"):
            self.workflows.close(self.execution, "COMPLETED", "WorkflowExecutionCompleted",
                                 parent_event=("ChildWorkflowExecutionCompleted", {"result": attributes.get("result")}),
                                 result=attributes.get("result"), decisionTaskCompletedEventId=self.completed_id)

    def fail(self, attributes: dict[str, Any]) -> None:
        if not self._unhandled("FailWorkflowExecutionFailed"):
            reason, details = attributes.get("reason"), attributes.get("details")
            self.workflows.close(self.execution, "FAILED", "WorkflowExecutionFailed",
                                 parent_event=("ChildWorkflowExecutionFailed", {"reason": reason, "details": details}),
                                 reason=reason, details=details, decisionTaskCompletedEventId=self.completed_id)

    def cancel(self, attributes: dict[str, Any]) -> None:
        if not self._unhandled("CancelWorkflowExecutionFailed"):
            details = attributes.get("details")
            self.workflows.close(self.execution, "CANCELED", "WorkflowExecutionCanceled",
                                 parent_event=("ChildWorkflowExecutionCanceled", {"details": details}),
                                 details=details, decisionTaskCompletedEventId=self.completed_id)

    def continue_as_new(self, attributes: dict[str, Any]) -> None:
        if self._unhandled("ContinueAsNewWorkflowExecutionFailed"):
            return
        execution = self.execution
        workflow_type = {"name": execution.workflow_type["name"],
                         "version": attributes.get("workflowTypeVersion", execution.workflow_type["version"])}
        try:
            _, settings = resolve_start(execution.domain, attributes, workflow_type)
        except StartProblem as problem:
            return self._failed("ContinueAsNewWorkflowExecutionFailed", cause=problem.cause)
        run_id = self.workflows.new_run_id()
        self.workflows.close(
            execution, "CONTINUED_AS_NEW", "WorkflowExecutionContinuedAsNew", input=attributes.get("input"),
            decisionTaskCompletedEventId=self.completed_id, newExecutionRunId=run_id,
            executionStartToCloseTimeout=settings["executionStartToCloseTimeout"], taskList=settings["taskList"],
            taskPriority=settings["taskPriority"], taskStartToCloseTimeout=settings["taskStartToCloseTimeout"],
            childPolicy=settings["childPolicy"], tagList=attributes.get("tagList"), workflowType=workflow_type,
            lambdaRole=settings["lambdaRole"])
        new_run = self.workflows.start(
            execution.domain, execution.account, execution.region, execution.workflow_id, attributes, workflow_type,
            parent=execution.parent, initiated_event_id=execution.parent_initiated_event_id,
            continued_run_id=execution.run_id, run_id=run_id)
        parent = execution.parent
        if parent is not None and parent.children.get(execution.parent_initiated_event_id or 0) is execution:
            parent.children[execution.parent_initiated_event_id or 0] = new_run  # the parent follows the new run

    # -- markers and timers ------------------------------------------------------------------------------
    def record_marker(self, attributes: dict[str, Any]) -> None:
        self._event("MarkerRecorded", markerName=attributes["markerName"], details=attributes.get("details"),
                    decisionTaskCompletedEventId=self.completed_id)

    def start_timer(self, attributes: dict[str, Any]) -> None:
        timer_id = attributes["timerId"]
        if timer_id in self.execution.timers:
            return self._failed("StartTimerFailed", timerId=timer_id, cause="TIMER_ID_ALREADY_IN_USE")
        seconds = int(attributes["startToFireTimeout"])
        started = self._event("TimerStarted", timerId=timer_id, control=attributes.get("control"),
                              startToFireTimeout=attributes["startToFireTimeout"], decisionTaskCompletedEventId=self.completed_id)
        execution, workflows = self.execution, self.workflows

        def fire() -> None:
            with workflows.lock:
                open_timer = execution.timers.get(timer_id)
                if execution.is_open and open_timer is not None and open_timer.started_event_id == started:
                    del execution.timers[timer_id]
                    execution.history.add("TimerFired", workflows.clock.now(), timerId=timer_id, startedEventId=started)
                    workflows.schedule_decision(execution)

        execution.timers[timer_id] = OpenTimer(timer_id, started, workflows.timer(seconds, fire,
                                                                                  since=execution.history.timestamp(started)))

    def cancel_timer(self, attributes: dict[str, Any]) -> None:
        timer_id = attributes["timerId"]
        open_timer = self.execution.timers.pop(timer_id, None)
        if open_timer is None:
            return self._failed("CancelTimerFailed", timerId=timer_id, cause="TIMER_ID_UNKNOWN")
        open_timer.timer.cancel()
        self._event("TimerCanceled", timerId=timer_id, startedEventId=open_timer.started_event_id,
                    decisionTaskCompletedEventId=self.completed_id)

    # -- other executions ----------------------------------------------------------------------------------
    def _external(self, attributes: dict[str, Any]) -> WorkflowExecution | None:
        execution = self.execution
        try:
            return self.workflows.find(execution.account, execution.region, execution.domain.name,
                                       attributes["workflowId"], attributes.get("runId"), open_only=True)
        except UnknownResourceFault:
            return None

    def signal_external(self, attributes: dict[str, Any]) -> None:
        common = dict(workflowId=attributes["workflowId"], runId=attributes.get("runId"), control=attributes.get("control"))
        initiated = self._event("SignalExternalWorkflowExecutionInitiated", signalName=attributes["signalName"],
                                input=attributes.get("input"), decisionTaskCompletedEventId=self.completed_id, **common)
        target = self._external(attributes)
        if target is None:
            return self._failed("SignalExternalWorkflowExecutionFailed", cause="UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION",
                                initiatedEventId=initiated, **common)
        self.workflows.signal(target, attributes["signalName"], attributes.get("input"), self.execution, initiated)
        self._event("ExternalWorkflowExecutionSignaled", workflowExecution=target.reference, initiatedEventId=initiated)
        self.needs_decision = True

    def request_cancel_external(self, attributes: dict[str, Any]) -> None:
        common = dict(workflowId=attributes["workflowId"], runId=attributes.get("runId"), control=attributes.get("control"))
        initiated = self._event("RequestCancelExternalWorkflowExecutionInitiated",
                                decisionTaskCompletedEventId=self.completed_id, **common)
        target = self._external(attributes)
        if target is None:
            return self._failed("RequestCancelExternalWorkflowExecutionFailed", cause="UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION",
                                initiatedEventId=initiated, **common)
        self.workflows.request_cancel(target, source=self.execution, initiated_event_id=initiated)
        self._event("ExternalWorkflowExecutionCancelRequested", workflowExecution=target.reference, initiatedEventId=initiated)
        self.needs_decision = True

    def start_child(self, attributes: dict[str, Any]) -> None:
        execution = self.execution
        workflow_type, workflow_id = attributes["workflowType"], attributes["workflowId"]
        failure = dict(workflowType=workflow_type, workflowId=workflow_id, control=attributes.get("control"))
        try:
            _, settings = resolve_start(execution.domain, attributes, workflow_type)
        except StartProblem as problem:
            return self._failed("StartChildWorkflowExecutionFailed", cause=problem.cause, initiatedEventId=0, **failure)
        initiated = self._event(
            "StartChildWorkflowExecutionInitiated", workflowId=workflow_id, workflowType=workflow_type,
            control=attributes.get("control"), input=attributes.get("input"),
            executionStartToCloseTimeout=settings["executionStartToCloseTimeout"], taskList=settings["taskList"],
            taskPriority=settings["taskPriority"], decisionTaskCompletedEventId=self.completed_id,
            childPolicy=settings["childPolicy"], taskStartToCloseTimeout=settings["taskStartToCloseTimeout"],
            tagList=attributes.get("tagList"), lambdaRole=settings["lambdaRole"])
        try:
            child = self.workflows.start(execution.domain, execution.account, execution.region, workflow_id, attributes,
                                         workflow_type, parent=execution, initiated_event_id=initiated)
        except WorkflowExecutionAlreadyStartedFault:
            return self._failed("StartChildWorkflowExecutionFailed", cause="WORKFLOW_ALREADY_RUNNING",
                                initiatedEventId=initiated, **failure)
        execution.children[initiated] = child
        execution.child_started_event_ids[initiated] = self._event(
            "ChildWorkflowExecutionStarted", workflowExecution=child.reference, workflowType=workflow_type,
            initiatedEventId=initiated)
        self.needs_decision = True

    # -- Lambda functions ----------------------------------------------------------------------------------
    def schedule_lambda(self, attributes: dict[str, Any]) -> None:
        lambda_id, name = attributes["id"], attributes["name"]
        if lambda_id in self.execution.lambdas:
            return self._failed("ScheduleLambdaFunctionFailed", id=lambda_id, name=name, cause="ID_ALREADY_IN_USE")
        timeout = attributes.get("startToCloseTimeout", DEFAULT_LAMBDA_TIMEOUT)
        scheduled = self._event("LambdaFunctionScheduled", id=lambda_id, name=name, control=attributes.get("control"),
                                input=attributes.get("input"), startToCloseTimeout=timeout,
                                decisionTaskCompletedEventId=self.completed_id)
        open_lambda = OpenLambda(lambda_id, scheduled)
        self.execution.lambdas[lambda_id] = open_lambda
        if self.workflows.start_lambda(self.execution, (open_lambda, name, attributes.get("input"), parse_duration(timeout))):
            self.needs_decision = True
