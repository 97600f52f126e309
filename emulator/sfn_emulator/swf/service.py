"""The Amazon SWF control plane: one method per operation of botocore's `swf` model, in the caller's
account and region, answering what the API reference says. The wire layer (or the in-process
client) hands requests here as `handle(operation, params, account=, region=)`.

The engine is passed in (the runtime wires it): its timers carry every SWF deadline, so SWF and
Step Functions share one clock and one rule for when it jumps.
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Any, Callable

from sfn_emulator.protocol.partitions import partition_for
from sfn_emulator.process.randomness import Randomness, process_seed
from sfn_emulator.swf.decisions import DecisionBatch, check_attributes, check_close_is_last
from sfn_emulator.swf.execution import ActivityTask, DecisionTask, WorkflowExecution
from sfn_emulator.swf.faults import TooManyTagsFault
from sfn_emulator.swf.lambdas import LambdaRunner
from sfn_emulator.swf.numbers import check_numbers
from sfn_emulator.swf.paging import page
from sfn_emulator.swf.polls import decision_page, decision_task_answer
from sfn_emulator.swf.queries import matching
from sfn_emulator.swf.registry import ACTIVITY, WORKFLOW, Registry
from sfn_emulator.swf.tasks import TaskLists
from sfn_emulator.swf.workflows import ACTIVITY_TASK, DECISION, StartProblem, Workflows

if TYPE_CHECKING:
    from sfn_emulator.engine import Engine
    from sfn_emulator.resources.lambda_functions import LambdaFunctions

MAX_TAGS = 50  # tags on a domain (TooManyTagsFault beyond)
_SNAKE = re.compile(r"(?<!^)(?=[A-Z])")


class SwfService:
    def __init__(self, engine: Engine, functions: LambdaFunctions, *, function_hint: str = "--functions",
                 ids: Randomness | None = None) -> None:
        self.clock = engine.clock
        self._wake_engine = engine.wake  # a cancelled deadline changes what the auto clock may jump to
        self._lock = threading.RLock()
        self._registries: dict[tuple[str, str], Registry] = {}
        self.tasks = TaskLists(engine.clock, self._lock)
        self.workflows = Workflows(engine.clock, engine.set_timer, self._lock, self.tasks,
                                   ids or Randomness(process_seed(None)),
                                   LambdaRunner(functions, engine.outside_call, function_hint))

    def handle(self, operation: str, params: dict[str, Any], *, account: str, region: str) -> dict[str, Any]:
        method: Callable[..., dict[str, Any] | None] = getattr(self, _SNAKE.sub("_", operation).lower())
        registry = self._registry(account, region)
        check_numbers(operation, params)  # before anything changes: a decision half applied is never answered 500
        try:
            if operation in ("PollForDecisionTask", "PollForActivityTask"):
                return method(registry, params) or {}  # a long poll holds no lock while it waits
            with self._lock:
                return method(registry, params) or {}
        finally:
            self._wake_engine()

    def reset(self, account: str | None = None) -> None:
        with self._lock:
            for key in [key for key in self._registries if account is None or key[0] == account]:
                del self._registries[key]
            for key in [key for key in self.workflows.executions if account is None or key[0] == account]:
                gone = self.workflows.executions.pop(key)
                for execution in gone:
                    if execution.is_open:
                        self.workflows.close(execution, "TERMINATED", "WorkflowExecutionTerminated",
                                             childPolicy="ABANDON", reason="the emulator was reset")
                self.workflows.forget_tokens(gone)

    def close(self) -> None:
        self.tasks.close()

    def _registry(self, account: str, region: str) -> Registry:
        with self._lock:
            key = (account, region)
            if key not in self._registries:
                self._registries[key] = Registry(account, region, partition_for(region))
            return self._registries[key]

    # == domains ======================================================================================
    def register_domain(self, registry: Registry, params: dict[str, Any]) -> None:
        if len(params.get("tags", [])) > MAX_TAGS:
            raise TooManyTagsFault(f"You can specify a maximum of {MAX_TAGS} tags.")
        registry.register_domain(params)

    def deprecate_domain(self, registry: Registry, params: dict[str, Any]) -> None:
        registry.deprecate_domain(params["name"])

    def undeprecate_domain(self, registry: Registry, params: dict[str, Any]) -> None:
        registry.undeprecate_domain(params["name"])

    def describe_domain(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        domain = registry.domain(params["name"])
        return {"domainInfo": domain.info(),
                "configuration": {"workflowExecutionRetentionPeriodInDays": domain.retention_days}}

    def list_domains(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        domains = sorted((domain for domain in registry.domains.values() if domain.status == params["registrationStatus"]),
                         key=lambda domain: domain.name)
        chunk, token = page(domains, params)
        return _with_token({"domainInfos": [domain.info() for domain in chunk]}, token)

    # == types ========================================================================================
    def register_workflow_type(self, registry: Registry, params: dict[str, Any]) -> None:
        registry.register_type(WORKFLOW, params, self.clock.now())

    def register_activity_type(self, registry: Registry, params: dict[str, Any]) -> None:
        registry.register_type(ACTIVITY, params, self.clock.now())

    def deprecate_workflow_type(self, registry: Registry, params: dict[str, Any]) -> None:
        registry.deprecate_type(WORKFLOW, params, self.clock.now())

    def deprecate_activity_type(self, registry: Registry, params: dict[str, Any]) -> None:
        registry.deprecate_type(ACTIVITY, params, self.clock.now())

    def undeprecate_workflow_type(self, registry: Registry, params: dict[str, Any]) -> None:
        registry.undeprecate_type(WORKFLOW, params)

    def undeprecate_activity_type(self, registry: Registry, params: dict[str, Any]) -> None:
        registry.undeprecate_type(ACTIVITY, params)

    def delete_workflow_type(self, registry: Registry, params: dict[str, Any]) -> None:
        registry.delete_type(WORKFLOW, params)

    def delete_activity_type(self, registry: Registry, params: dict[str, Any]) -> None:
        registry.delete_type(ACTIVITY, params)

    def describe_workflow_type(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        return registry.describe_type(WORKFLOW, params)

    def describe_activity_type(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        return registry.describe_type(ACTIVITY, params)

    def list_workflow_types(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        chunk, token = page(registry.list_types(WORKFLOW, params), params)
        return _with_token({"typeInfos": [registered.info() for registered in chunk]}, token)

    def list_activity_types(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        chunk, token = page(registry.list_types(ACTIVITY, params), params)
        return _with_token({"typeInfos": [registered.info() for registered in chunk]}, token)

    # == tags =========================================================================================
    def tag_resource(self, registry: Registry, params: dict[str, Any]) -> None:
        domain = registry.domain_by_arn(params["resourceArn"])
        tags = {**domain.tags, **{tag["key"]: tag.get("value", "") for tag in params["tags"]}}
        if len(tags) > MAX_TAGS:
            raise TooManyTagsFault(f"You can specify a maximum of {MAX_TAGS} tags.")
        domain.tags = tags

    def untag_resource(self, registry: Registry, params: dict[str, Any]) -> None:
        domain = registry.domain_by_arn(params["resourceArn"])
        for key in params["tagKeys"]:
            domain.tags.pop(key, None)

    def list_tags_for_resource(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        domain = registry.domain_by_arn(params["resourceArn"])
        return {"tags": [{"key": key, "value": value} for key, value in domain.tags.items()]}

    # == executions ===================================================================================
    def start_workflow_execution(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        domain = registry.domain(params["domain"], registered=True)
        try:
            execution = self.workflows.start(domain, registry.account, registry.region, params["workflowId"], params,
                                             params["workflowType"])
        except StartProblem as problem:
            raise problem.fault from None
        return {"runId": execution.run_id}

    def _execution(self, registry: Registry, params: dict[str, Any], *, open_only: bool = False) -> WorkflowExecution:
        domain = registry.domain(params["domain"]).name
        if "execution" in params:
            reference = params["execution"]
            return self.workflows.find(registry.account, registry.region, domain, reference["workflowId"],
                                       reference["runId"], open_only=open_only)
        return self.workflows.find(registry.account, registry.region, domain, params["workflowId"], params.get("runId"),
                                   open_only=open_only)

    def describe_workflow_execution(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        execution = self._execution(registry, params)
        answer: dict[str, Any] = {"executionInfo": execution.info(), "executionConfiguration": execution.configuration(),
                                  "openCounts": execution.open_counts()}
        if execution.latest_activity_task_timestamp is not None:
            answer["latestActivityTaskTimestamp"] = execution.latest_activity_task_timestamp
        if execution.latest_execution_context is not None:
            answer["latestExecutionContext"] = execution.latest_execution_context
        return answer

    def get_workflow_execution_history(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        execution = self._execution(registry, params)
        chunk, token = page(execution.history.events, params)
        return _with_token({"events": chunk}, token)

    def _listed(self, registry: Registry, params: dict[str, Any], *, open_ones: bool) -> list[WorkflowExecution]:
        domain = registry.domain(params["domain"]).name
        return matching(self.workflows.of_domain(registry.account, registry.region, domain), params, open_ones=open_ones)

    def list_open_workflow_executions(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        return self._list(registry, params, open_ones=True)

    def list_closed_workflow_executions(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        return self._list(registry, params, open_ones=False)

    def _list(self, registry: Registry, params: dict[str, Any], *, open_ones: bool) -> dict[str, Any]:
        chunk, token = page(self._listed(registry, params, open_ones=open_ones), params)
        return _with_token({"executionInfos": [execution.info() for execution in chunk]}, token)

    def count_open_workflow_executions(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        return {"count": len(self._listed(registry, params, open_ones=True)), "truncated": False}

    def count_closed_workflow_executions(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        return {"count": len(self._listed(registry, params, open_ones=False)), "truncated": False}

    def signal_workflow_execution(self, registry: Registry, params: dict[str, Any]) -> None:
        execution = self._execution(registry, params, open_only=True)
        self.workflows.signal(execution, params["signalName"], params.get("input"))

    def request_cancel_workflow_execution(self, registry: Registry, params: dict[str, Any]) -> None:
        execution = self._execution(registry, params, open_only=True)
        if not execution.cancel_requested:  # a second request changes nothing
            self.workflows.request_cancel(execution)

    def terminate_workflow_execution(self, registry: Registry, params: dict[str, Any]) -> None:
        execution = self._execution(registry, params, open_only=True)
        self.workflows.terminate(execution, reason=params.get("reason"), details=params.get("details"),
                                 child_policy=params.get("childPolicy"), cause="OPERATOR_INITIATED")

    # == task lists ===================================================================================
    def count_pending_decision_tasks(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        return self._count_pending(registry, params, DECISION)

    def count_pending_activity_tasks(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        return self._count_pending(registry, params, ACTIVITY_TASK)

    def _count_pending(self, registry: Registry, params: dict[str, Any], kind: str) -> dict[str, Any]:
        domain = registry.domain(params["domain"]).name
        key = self.workflows.task_list_key(registry.account, registry.region, domain, kind, params["taskList"]["name"])
        return {"count": self.tasks.count(key), "truncated": False}

    def poll_for_decision_task(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            domain = registry.domain(params["domain"]).name
            if params.get("nextPageToken"):  # the next page of a decision task already taken
                return decision_page(self.workflows.tokens, params)
        key = self.workflows.task_list_key(registry.account, registry.region, domain, DECISION, params["taskList"]["name"])

        def take(entry: tuple[WorkflowExecution, DecisionTask]) -> dict[str, Any] | None:
            execution, decision = entry
            if not self.workflows.take_decision(execution, decision, params.get("identity")):
                return None
            return decision_task_answer(execution, decision, params)

        return self.tasks.poll(key, take) or {"taskToken": "", "startedEventId": 0, "previousStartedEventId": 0}

    def respond_decision_task_completed(self, registry: Registry, params: dict[str, Any]) -> None:
        execution, decision = self.workflows.task_of(params["taskToken"], DecisionTask)
        decisions = params.get("decisions", [])
        check_attributes(decisions)
        check_close_is_last(decisions)
        if "taskList" in params:
            execution.decision_task_list = params["taskList"]["name"]
            timeout = params.get("taskListScheduleToStartTimeout")
            execution.decision_schedule_to_start = float(timeout) if timeout not in (None, "NONE") else None
        if params.get("executionContext") is not None:
            execution.latest_execution_context = params["executionContext"]
        completed = execution.history.add(
            "DecisionTaskCompleted", self.clock.now(), executionContext=params.get("executionContext"),
            scheduledEventId=decision.scheduled_event_id, startedEventId=decision.started_event_id,
            taskList=params.get("taskList"), taskListScheduleToStartTimeout=params.get("taskListScheduleToStartTimeout"))
        batch = DecisionBatch(self.workflows, execution, completed)
        batch.apply(decisions)
        self.workflows.decision_closed(execution, decision)
        if batch.needs_decision:
            self.workflows.schedule_decision(execution)

    def poll_for_activity_task(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            domain = registry.domain(params["domain"]).name
        key = self.workflows.task_list_key(registry.account, registry.region, domain, ACTIVITY_TASK, params["taskList"]["name"])

        def take(entry: tuple[WorkflowExecution, ActivityTask]) -> dict[str, Any] | None:
            execution, task = entry
            if not self.workflows.take_activity(execution, task, params.get("identity")):
                return None
            answer = {"taskToken": task.token, "activityId": task.activity_id, "startedEventId": task.started_event_id,
                      "workflowExecution": execution.reference, "activityType": task.activity_type}
            if task.input is not None:
                answer["input"] = task.input
            return answer

        return self.tasks.poll(key, take) or {"taskToken": "", "startedEventId": 0}

    def record_activity_task_heartbeat(self, registry: Registry, params: dict[str, Any]) -> dict[str, Any]:
        execution, task = self.workflows.task_of(params["taskToken"], ActivityTask)
        self.workflows.heartbeat(execution, task, params.get("details"))
        return {"cancelRequested": bool(task.cancel_requested_event_id)}

    def respond_activity_task_completed(self, registry: Registry, params: dict[str, Any]) -> None:
        self._close_activity(params, "ActivityTaskCompleted", result=params.get("result"))

    def respond_activity_task_failed(self, registry: Registry, params: dict[str, Any]) -> None:
        self._close_activity(params, "ActivityTaskFailed", reason=params.get("reason"), details=params.get("details"))

    def respond_activity_task_canceled(self, registry: Registry, params: dict[str, Any]) -> None:
        _, task = self.workflows.task_of(params["taskToken"], ActivityTask)
        self._close_activity(params, "ActivityTaskCanceled", details=params.get("details"),
                             latestCancelRequestedEventId=task.cancel_requested_event_id or None)

    def _close_activity(self, params: dict[str, Any], event_type: str, **attributes: Any) -> None:
        execution, task = self.workflows.task_of(params["taskToken"], ActivityTask)
        self.workflows.close_activity(execution, task, event_type, **attributes)
        self.workflows.schedule_decision(execution)

def _with_token(answer: dict[str, Any], token: str | None) -> dict[str, Any]:
    if token is not None:
        answer["nextPageToken"] = token
    return answer

