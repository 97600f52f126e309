"""The life of workflow executions: start (with the workflow type's defaults), decision tasks,
activity tasks, timers and every timeout on the emulator's clock, signals, cancel requests,
closing (with child policies and the parent's events) and termination.

Time: every deadline is a timer of the engine (`set_timer`), so the clock's auto/manual/real rules
are Step Functions' own. While a decision or activity task is open, someone outside (a decider, a
worker) races the execution's deadlines: the execution's start-to-close timer and the task
timeouts are then set as such (`skippable=False`), and the auto clock follows the wall clock
instead of jumping; once only timers remain, it jumps to the next one.

History defaults: an event id that names no event is written 0, as the live service writes it
(`parentInitiatedEventId` of a root execution, `externalInitiatedEventId` of a signal or cancel
request from outside any workflow: published captures of WorkflowExecutionStarted and of
WorkflowExecutionSignaled, e.g. simpleflow's recorded cassettes).
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any, Callable

from sfn_emulator.clock.virtual_clock import Clock, after
from sfn_emulator.engine.scheduling.timers import Timer
from sfn_emulator.process.randomness import Randomness
from sfn_emulator.swf.execution import (
    CLOSED,
    ActivityTask,
    DecisionTask,
    OpenLambda,
    WorkflowExecution,
    parse_duration,
)
from sfn_emulator.swf.lambdas import LambdaRunner
from sfn_emulator.swf.faults import (
    DefaultUndefinedFault,
    TypeDeprecatedFault,
    UnknownResourceFault,
    WorkflowExecutionAlreadyStartedFault,
    type_label,
    unknown_execution,
)
from sfn_emulator.swf.registry import DEPRECATED, WORKFLOW, Domain, RegisteredType
from sfn_emulator.swf.tasks import TaskLists

SetTimer = Callable[..., Timer]  # (due, fire, *, skippable) -> Timer: the engine's `set_timer`
DECISION, ACTIVITY_TASK = "decision", "activity"
_TASK_NOUN = {ActivityTask: "activity", DecisionTask: "decision task"}  # how SWF's fault messages name a task


class StartProblem(Exception):
    """Why an execution cannot start, as a fault name for the API and a cause for a decision."""

    def __init__(self, cause: str, fault: Exception) -> None:
        super().__init__(cause)
        self.cause = cause
        self.fault = fault


def resolve_start(domain: Domain, attributes: dict[str, Any], workflow_type: dict[str, str]) -> tuple[RegisteredType, dict[str, Any]]:
    """The workflow type and the execution's settings, from `attributes` and the type's defaults;
    raises StartProblem with the cause SWF records (and the fault it answers)."""
    registered = domain.find_type(WORKFLOW, workflow_type)
    label = type_label(WORKFLOW, workflow_type["name"], workflow_type["version"])
    if registered is None:
        raise StartProblem("WORKFLOW_TYPE_DOES_NOT_EXIST", UnknownResourceFault(f"Unknown type: {label}"))
    if registered.status == DEPRECATED:
        raise StartProblem("WORKFLOW_TYPE_DEPRECATED", TypeDeprecatedFault(label))
    settings: dict[str, Any] = {}
    for member, default, cause in (
        ("executionStartToCloseTimeout", "defaultExecutionStartToCloseTimeout", "DEFAULT_EXECUTION_START_TO_CLOSE_TIMEOUT_UNDEFINED"),
        ("taskList", "defaultTaskList", "DEFAULT_TASK_LIST_UNDEFINED"),
        ("taskStartToCloseTimeout", "defaultTaskStartToCloseTimeout", "DEFAULT_TASK_START_TO_CLOSE_TIMEOUT_UNDEFINED"),
        ("childPolicy", "defaultChildPolicy", "DEFAULT_CHILD_POLICY_UNDEFINED"),
    ):
        value = attributes.get(member, registered.default(default))
        if value is None:
            raise StartProblem(cause, DefaultUndefinedFault(member))
        settings[member] = value
    settings["taskPriority"] = attributes.get("taskPriority", registered.default("defaultTaskPriority"))
    settings["lambdaRole"] = attributes.get("lambdaRole", registered.default("defaultLambdaRole"))
    return registered, settings


class Workflows:
    """Every execution of the service, and what happens to them; callers hold `lock`."""

    def __init__(self, clock: Clock, set_timer: SetTimer, lock: threading.RLock, tasks: TaskLists, ids: Randomness,
                 lambdas: LambdaRunner) -> None:
        self.clock = clock
        self._set_timer = set_timer
        self.lock = lock
        self.tasks = tasks
        self._ids = ids  # run ids and task tokens, from the emulator's seed (drawn under `lock`)
        self.executions: dict[tuple[str, str, str], list[WorkflowExecution]] = {}  # (account, region, domain) -> all
        self.tokens: dict[str, tuple[WorkflowExecution, Any]] = {}  # task token -> (execution, open task)
        self.spent_tokens: dict[str, tuple[WorkflowExecution, Any]] = {}  # tokens of tasks that are over
        self._lambdas = lambdas

    def start_lambda(self, execution: WorkflowExecution, scheduled: tuple[OpenLambda, str, str | None, float | None]) -> bool:
        """Run a scheduled Lambda function; True when it failed to start (see `lambdas`)."""
        return self._lambdas.start(self, execution, scheduled)

    # -- finding ---------------------------------------------------------------------------------
    def of_domain(self, account: str, region: str, domain: str) -> list[WorkflowExecution]:
        return self.executions.setdefault((account, region, domain), [])

    def open_run(self, account: str, region: str, domain: str, workflow_id: str) -> WorkflowExecution | None:
        for execution in self.of_domain(account, region, domain):
            if execution.workflow_id == workflow_id and execution.is_open:
                return execution
        return None

    def find(self, account: str, region: str, domain: str, workflow_id: str, run_id: str | None, *,
             open_only: bool = False) -> WorkflowExecution:
        """The execution (the open run when `run_id` is None), or UnknownResourceFault."""
        for execution in self.of_domain(account, region, domain):
            if execution.workflow_id == workflow_id and (run_id is None and execution.is_open or execution.run_id == run_id):
                if not open_only or execution.is_open:
                    return execution
        raise UnknownResourceFault(unknown_execution(workflow_id, run_id))

    # -- starting --------------------------------------------------------------------------------
    def start(self, domain: Domain, account: str, region: str, workflow_id: str, attributes: dict[str, Any],
              workflow_type: dict[str, str], *, parent: WorkflowExecution | None = None,
              initiated_event_id: int | None = None, continued_run_id: str | None = None,
              run_id: str | None = None) -> WorkflowExecution:
        """Start an execution; raises StartProblem (type, defaults) or WorkflowExecutionAlreadyStartedFault."""
        _, settings = resolve_start(domain, attributes, workflow_type)
        if self.open_run(account, region, domain.name, workflow_id) is not None:
            raise WorkflowExecutionAlreadyStartedFault("Already Started")
        now = self.clock.now()
        execution = WorkflowExecution(
            domain=domain, account=account, region=region, workflow_id=workflow_id, run_id=run_id or self.new_run_id(),
            workflow_type=dict(workflow_type), task_list=settings["taskList"]["name"], task_priority=settings["taskPriority"],
            input=attributes.get("input"), execution_timeout=settings["executionStartToCloseTimeout"],
            task_timeout=settings["taskStartToCloseTimeout"], child_policy=settings["childPolicy"],
            tag_list=list(attributes.get("tagList", [])), lambda_role=settings["lambdaRole"], start_timestamp=now,
            parent=parent, parent_initiated_event_id=initiated_event_id,
        )
        self.of_domain(account, region, domain.name).append(execution)
        execution.history.add(
            "WorkflowExecutionStarted", now, input=execution.input,
            executionStartToCloseTimeout=execution.execution_timeout, taskStartToCloseTimeout=execution.task_timeout,
            childPolicy=execution.child_policy, taskList={"name": execution.task_list}, taskPriority=execution.task_priority,
            workflowType=execution.workflow_type, tagList=execution.tag_list or None, continuedExecutionRunId=continued_run_id,
            parentWorkflowExecution=parent.reference if parent else None, parentInitiatedEventId=initiated_event_id or 0,
            lambdaRole=execution.lambda_role)
        self.schedule_decision(execution)
        return execution

    # -- decision tasks --------------------------------------------------------------------------
    def schedule_decision(self, execution: WorkflowExecution) -> None:
        """New events need the decider: schedule a decision task unless one is scheduled already;
        it is handed out once no other decision task of the execution is started."""
        if not execution.is_open or execution.scheduled_decision is not None:
            return
        task_list = execution.decision_task_list or execution.task_list
        schedule_to_start = execution.decision_schedule_to_start
        event_id = execution.history.add(
            "DecisionTaskScheduled", self.clock.now(), taskList={"name": task_list}, taskPriority=execution.task_priority,
            startToCloseTimeout=execution.task_timeout,
            scheduleToStartTimeout=str(int(schedule_to_start)) if schedule_to_start is not None else None)
        execution.scheduled_decision = DecisionTask(event_id, task_list)
        if schedule_to_start is not None:
            decision = execution.scheduled_decision
            decision.timer = self.deadline(schedule_to_start, lambda: self._decision_timed_out(execution, decision, "SCHEDULE_TO_START"),
                                           since=execution.history.timestamp(event_id))
        self._race_deadline(execution)
        if execution.started_decision is None:
            self._offer_decision(execution)

    def _offer_decision(self, execution: WorkflowExecution) -> None:
        decision = execution.scheduled_decision
        if decision is not None:
            self.tasks.offer(self._key(execution, DECISION, decision.task_list), (execution, decision), execution.task_priority)

    def take_decision(self, execution: WorkflowExecution, decision: DecisionTask, identity: str | None) -> bool:
        """A decider takes the scheduled decision task: DecisionTaskStarted (False if it is gone)."""
        if not execution.is_open or execution.scheduled_decision is not decision or execution.started_decision is not None:
            return False
        if decision.timer:
            decision.timer.cancel()
        execution.scheduled_decision = None
        execution.started_decision = decision
        decision.started_event_id = execution.history.add("DecisionTaskStarted", self.clock.now(), identity=identity,
                                                          scheduledEventId=decision.scheduled_event_id)
        decision.token = self._token(execution, decision)
        timeout = parse_duration(execution.task_timeout)
        if timeout is not None:
            decision.timer = self.deadline(timeout, lambda: self._decision_timed_out(execution, decision, "START_TO_CLOSE"),
                                           since=execution.history.timestamp(decision.started_event_id))
        return True

    def decision_closed(self, execution: WorkflowExecution, decision: DecisionTask) -> None:
        """The started decision task is over (completed or timed out): the next may be handed out."""
        if decision.timer:
            decision.timer.cancel()
        self._retire(decision.token)
        if execution.started_decision is decision:
            execution.started_decision = None
        if execution.is_open:
            self._offer_decision(execution)
        self._race_deadline(execution)

    def _decision_timed_out(self, execution: WorkflowExecution, decision: DecisionTask, timeout_type: str) -> None:
        with self.lock:
            if not execution.is_open:
                return
            if timeout_type == "SCHEDULE_TO_START":
                if execution.scheduled_decision is not decision:
                    return
                self.tasks.withdraw(self._key(execution, DECISION, decision.task_list), (execution, decision))
                execution.scheduled_decision = None
            elif execution.started_decision is not decision:
                return
            execution.history.add("DecisionTaskTimedOut", self.clock.now(), timeoutType=timeout_type,
                                  scheduledEventId=decision.scheduled_event_id, startedEventId=decision.started_event_id)
            # The override of the task list ends here: SWF goes back to the execution's own.
            execution.decision_task_list = execution.decision_schedule_to_start = None
            self.decision_closed(execution, decision)
            self.schedule_decision(execution)

    # -- activity tasks ------------------------------------------------------------------------------
    def schedule_activity(self, execution: WorkflowExecution, task: ActivityTask, priority: str | None) -> None:
        execution.activities[task.activity_id] = task
        for timeout_type, seconds in (("SCHEDULE_TO_START", task.schedule_to_start), ("SCHEDULE_TO_CLOSE", task.schedule_to_close)):
            if seconds is not None:
                task.timers[timeout_type] = self.deadline(
                    seconds, lambda kind=timeout_type: self._activity_timed_out(execution, task, kind),
                    since=execution.history.timestamp(task.scheduled_event_id))
        self._race_deadline(execution)
        self.tasks.offer(self._key(execution, ACTIVITY_TASK, task.task_list), (execution, task), priority)

    def take_activity(self, execution: WorkflowExecution, task: ActivityTask, identity: str | None) -> bool:
        if not execution.is_open or execution.activities.get(task.activity_id) is not task or task.token is not None:
            return False
        now = self.clock.now()
        task.started_event_id = execution.history.add("ActivityTaskStarted", now, identity=identity,
                                                      scheduledEventId=task.scheduled_event_id)
        execution.latest_activity_task_timestamp = now
        task.token = self._token(execution, task)
        self._cancel(task.timers.pop("SCHEDULE_TO_START", None))
        if task.start_to_close is not None:
            task.timers["START_TO_CLOSE"] = self.deadline(
                task.start_to_close, lambda: self._activity_timed_out(execution, task, "START_TO_CLOSE"), since=now)
        self.heartbeat(execution, task, None, since=now)
        return True

    def heartbeat(self, execution: WorkflowExecution, task: ActivityTask, details: str | None, *,
                  since: datetime | None = None) -> None:
        """The worker reports progress: the heartbeat timeout starts again, from `since` (the task's
        start) or now (a RecordActivityTaskHeartbeat)."""
        if details is not None:
            task.details = details
        self._cancel(task.timers.pop("HEARTBEAT", None))
        if task.heartbeat is not None:
            task.timers["HEARTBEAT"] = self.deadline(
                task.heartbeat, lambda: self._activity_timed_out(execution, task, "HEARTBEAT"), since=since or self.clock.now())

    def close_activity(self, execution: WorkflowExecution, task: ActivityTask, event_type: str, **attributes: Any) -> None:
        """The activity task ends with `event_type` (Completed, Failed, Canceled, TimedOut)."""
        for timer in task.timers.values():
            timer.cancel()
        task.timers.clear()
        self._retire(task.token)
        execution.activities.pop(task.activity_id, None)
        if task.token is None:
            self.tasks.withdraw(self._key(execution, ACTIVITY_TASK, task.task_list), (execution, task))
        execution.history.add(event_type, self.clock.now(), scheduledEventId=task.scheduled_event_id,
                              startedEventId=task.started_event_id, **attributes)
        self._race_deadline(execution)

    def _activity_timed_out(self, execution: WorkflowExecution, task: ActivityTask, timeout_type: str) -> None:
        with self.lock:
            if not execution.is_open or execution.activities.get(task.activity_id) is not task:
                return
            self.close_activity(execution, task, "ActivityTaskTimedOut", timeoutType=timeout_type, details=task.details)
            self.schedule_decision(execution)

    # -- signals and cancel requests ---------------------------------------------------------------------
    def signal(self, execution: WorkflowExecution, name: str, input_text: str | None,
               source: WorkflowExecution | None = None, initiated_event_id: int | None = None) -> None:
        execution.history.add("WorkflowExecutionSignaled", self.clock.now(), signalName=name, input=input_text,
                              externalWorkflowExecution=source.reference if source else None,
                              externalInitiatedEventId=initiated_event_id or 0)
        self.schedule_decision(execution)

    def request_cancel(self, execution: WorkflowExecution, *, source: WorkflowExecution | None = None,
                       initiated_event_id: int | None = None, cause: str | None = None) -> None:
        execution.cancel_requested = True
        execution.history.add("WorkflowExecutionCancelRequested", self.clock.now(),
                              externalWorkflowExecution=source.reference if source else None,
                              externalInitiatedEventId=initiated_event_id or 0, cause=cause)
        self.schedule_decision(execution)

    # -- closing ---------------------------------------------------------------------------------
    def close(self, execution: WorkflowExecution, close_status: str, event_type: str, *,
              child_policy_applies: bool = False, parent_event: tuple[str, dict[str, Any]] | None = None,
              **attributes: Any) -> None:
        """Record the closing event, let go of every open task and timer, apply the child policy
        when the execution was terminated or timed out, and tell the parent."""
        now = self.clock.now()
        execution.history.add(event_type, now, **attributes)
        execution.status, execution.close_status, execution.close_timestamp = CLOSED, close_status, now
        for decision in (execution.scheduled_decision, execution.started_decision):
            if decision is not None:
                self._cancel(decision.timer)
                self._retire(decision.token)
                self.tasks.withdraw(self._key(execution, DECISION, decision.task_list), (execution, decision))
        execution.scheduled_decision = execution.started_decision = None
        for task in list(execution.activities.values()):
            for timer in task.timers.values():
                timer.cancel()
            self._retire(task.token)
            self.tasks.withdraw(self._key(execution, ACTIVITY_TASK, task.task_list), (execution, task))
        execution.activities.clear()
        for open_timer in execution.timers.values():
            open_timer.timer.cancel()
        execution.timers.clear()
        for open_lambda in execution.lambdas.values():
            open_lambda.closed = True
            self._cancel(open_lambda.timer)
        execution.lambdas.clear()
        self._cancel(execution.deadline)
        if child_policy_applies:
            self._apply_child_policy(execution, attributes.get("childPolicy", execution.child_policy))
        if execution.parent is not None and parent_event is not None:
            self._tell_parent(execution, *parent_event)

    def terminate(self, execution: WorkflowExecution, *, reason: str | None = None, details: str | None = None,
                  child_policy: str | None = None, cause: str | None = None) -> None:
        policy = child_policy or execution.child_policy
        self.close(execution, "TERMINATED", "WorkflowExecutionTerminated", child_policy_applies=True,
                   parent_event=("ChildWorkflowExecutionTerminated", {}),
                   reason=reason, details=details, childPolicy=policy, cause=cause)

    def _timed_out(self, execution: WorkflowExecution) -> None:
        with self.lock:
            if execution.is_open:
                self.close(execution, "TIMED_OUT", "WorkflowExecutionTimedOut", child_policy_applies=True,
                           parent_event=("ChildWorkflowExecutionTimedOut", {"timeoutType": "START_TO_CLOSE"}),
                           timeoutType="START_TO_CLOSE", childPolicy=execution.child_policy)

    def _apply_child_policy(self, execution: WorkflowExecution, policy: str) -> None:
        for child in list(execution.children.values()):
            if not child.is_open:
                continue
            if policy == "TERMINATE":
                self.terminate(child, cause="CHILD_POLICY_APPLIED")
            elif policy == "REQUEST_CANCEL":
                self.request_cancel(child, cause="CHILD_POLICY_APPLIED")

    def _tell_parent(self, child: WorkflowExecution, event_type: str, attributes: dict[str, Any]) -> None:
        parent = child.parent
        initiated = child.parent_initiated_event_id
        if parent is None or initiated is None or not parent.is_open:
            return
        parent.children.pop(initiated, None)
        parent.history.add(event_type, self.clock.now(), workflowExecution=child.reference,
                           workflowType=child.workflow_type, initiatedEventId=initiated,
                           startedEventId=parent.child_started_event_ids.get(initiated, 0), **attributes)
        self.schedule_decision(parent)

    # -- the clock -------------------------------------------------------------------------------
    def _race_deadline(self, execution: WorkflowExecution) -> None:
        """(Re)set the execution's start-to-close timer, as a deadline someone outside races while
        a decision or activity task is open (the rule Step Functions applies to activities)."""
        raced = execution.waits_for_outside() and execution.is_open
        if not execution.is_open or (raced == execution.deadline_raced and execution.deadline is not None):
            return
        self._cancel(execution.deadline)
        execution.deadline_raced = raced
        seconds = parse_duration(execution.execution_timeout)
        if seconds is not None:
            due = after(execution.start_timestamp, seconds)
            execution.deadline = self._set_timer(due, lambda: self._timed_out(execution), skippable=not raced)

    def deadline(self, seconds: float, fire: Callable[[], None], *, since: datetime) -> Timer:
        """A task timeout: someone outside can meet it, so the auto clock never skips it. It counts
        from `since`, the instant the event that starts it records (the clock may have moved on
        since, when it follows the wall clock)."""
        return self._set_timer(after(since, seconds), fire, skippable=False)

    def timer(self, seconds: float, fire: Callable[[], None], *, since: datetime) -> Timer:
        """A decider's timer (StartTimer), from its TimerStarted event's instant: the auto clock may jump to it."""
        return self._set_timer(after(since, seconds), fire, skippable=True)

    @staticmethod
    def _cancel(timer: Timer | None) -> None:
        if timer is not None:
            timer.cancel()

    # -- tokens and keys ---------------------------------------------------------------------------
    def new_run_id(self) -> str:
        """A new execution's `runId`."""
        return self._ids.hex_token(32)

    def task_of(self, token: str, kind: type) -> tuple[WorkflowExecution, Any]:
        """The open task of `kind` a token names, or UnknownResourceFault with SWF's words (as captured
        from the live service in moto's suite): a task that is over names its `scheduledEventId`, a
        task of a closed execution names the execution."""
        found = self.tokens.get(token) or self.spent_tokens.get(token)
        if found is None or not isinstance(found[1], kind):
            raise UnknownResourceFault("Unknown task token")
        execution, task = found
        if not execution.is_open:
            raise UnknownResourceFault(unknown_execution(execution.workflow_id, execution.run_id))
        if token not in self.tokens:
            raise UnknownResourceFault(f"Unknown {_TASK_NOUN[kind]}, scheduledEventId = {task.scheduled_event_id}")
        return found

    def forget_tokens(self, executions: list[WorkflowExecution]) -> None:
        """The executions are gone (an emulator reset): their spent tokens name nothing any more."""
        gone = {id(execution) for execution in executions}
        for token in [token for token, (execution, _) in self.spent_tokens.items() if id(execution) in gone]:
            del self.spent_tokens[token]

    def _retire(self, token: str | None) -> None:
        found = self.tokens.pop(token or "", None)
        if found is not None:
            self.spent_tokens[token or ""] = found

    def _token(self, execution: WorkflowExecution, task: Any) -> str:
        token = self._ids.hex_token(64)
        self.tokens[token] = (execution, task)
        return token

    @staticmethod
    def _key(execution: WorkflowExecution, kind: str, task_list: str) -> tuple[str, str, str, str, str]:
        return (execution.account, execution.region, execution.domain.name, kind, task_list)

    @staticmethod
    def task_list_key(account: str, region: str, domain: str, kind: str, task_list: str) -> tuple[str, str, str, str, str]:
        return (account, region, domain, kind, task_list)
