"""A decider and an activity worker written as SWF users write them: boto3 poll loops on threads.
Each loop is bounded (a number of polls) and stops when told; `join` re-raises what a loop raised."""

from __future__ import annotations

import threading
import uuid
from typing import Any, Callable

import boto3
from botocore.config import Config

Decide = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]  # the task's whole history -> decisions
Work = Callable[[dict[str, Any]], str]  # the activity task -> its result

# AWS's advice for long polls: a read timeout above the 60 s a poll may take.
POLL_CONFIG = Config(read_timeout=70, retries={"max_attempts": 0}, inject_host_prefix=False)


CLOSING = frozenset({"CompleteWorkflowExecution", "FailWorkflowExecution", "CancelWorkflowExecution",
                     "ContinueAsNewWorkflowExecution"})


def swf_client(endpoint_url: str | None, *, region: str = "us-east-1", access_key: str = "testing", **config: Any) -> Any:
    """An SWF client on the emulator (or, with no endpoint, on AWS's, as in-process mode answers it);
    `config` adds botocore Config options."""
    session = boto3.session.Session(aws_access_key_id=access_key, aws_secret_access_key="testing", region_name=region)
    return session.client("swf", endpoint_url=endpoint_url, config=POLL_CONFIG.merge(Config(**config)))


def register_basics(swf: Any, domain: str, *, activity_defaults: dict[str, Any] | None = None) -> None:
    """A domain with workflow type wf/1 (task list `decisions`) and activity type work/1 (task list `work`)."""
    swf.register_domain(name=domain, workflowExecutionRetentionPeriodInDays="1")
    swf.register_workflow_type(domain=domain, name="wf", version="1", defaultTaskList={"name": "decisions"},
                               defaultExecutionStartToCloseTimeout="31536000", defaultTaskStartToCloseTimeout="600",
                               defaultChildPolicy="TERMINATE")
    defaults = {"defaultTaskList": {"name": "work"}, "defaultTaskScheduleToCloseTimeout": "3600",
                "defaultTaskScheduleToStartTimeout": "3600", "defaultTaskStartToCloseTimeout": "3600"}
    swf.register_activity_type(domain=domain, name="work", version="1", **{**defaults, **(activity_defaults or {})})


def new_domain() -> str:
    return f"d-{uuid.uuid4().hex[:12]}"


class PollLoop(threading.Thread):
    def __init__(self, name: str, max_polls: int) -> None:
        super().__init__(name=name, daemon=True)
        self.stopping = threading.Event()
        self.max_polls = max_polls
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            for _ in range(self.max_polls):
                if self.stopping.is_set():
                    return
                self.poll_once()
        except BaseException as error:  # handed to the test by `finish`
            self.failure = error

    def poll_once(self) -> None:
        raise NotImplementedError

    def finish(self, timeout: float = 30) -> None:
        self.stopping.set()
        self.join(timeout)
        if self.failure is not None:
            raise self.failure


class Decider(PollLoop):
    """Polls `task_list` of `domain`; every decision task's whole history (all pages) goes to `decide`."""

    def __init__(self, swf: Any, domain: str, decide: Decide, *, task_list: str = "decisions", max_polls: int = 50,
                 until: str | None = None) -> None:
        super().__init__("decider", max_polls)
        self.until = until  # the workflowId whose closing ends the loop (None: the first closed)
        self.closed = threading.Event()  # set once the decider has closed that execution
        self.swf, self.domain, self.decide, self.task_list = swf, domain, decide, task_list

    def poll_once(self) -> None:
        task = self.swf.poll_for_decision_task(domain=self.domain, taskList={"name": self.task_list}, identity="decider")
        if not task["taskToken"]:
            return
        events = list(task["events"])
        while "nextPageToken" in task:
            task = self.swf.poll_for_decision_task(domain=self.domain, taskList={"name": self.task_list},
                                                   nextPageToken=task["nextPageToken"])
            events += task["events"]
        decisions = self.decide(events)
        self.swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=decisions)
        closes = any(decision["decisionType"] in CLOSING for decision in decisions)
        if closes and self.until in (None, task["workflowExecution"]["workflowId"]):
            self.closed.set()
            self.stopping.set()


class Worker(PollLoop):
    """Polls `task_list` for activity tasks and answers each with `work(task)`, `tasks` of them."""

    def __init__(self, swf: Any, domain: str, work: Work, *, tasks: int, task_list: str = "work", max_polls: int = 50) -> None:
        super().__init__("worker", max_polls)
        self.swf, self.domain, self.work, self.task_list = swf, domain, work, task_list
        self.tasks_left = tasks

    def poll_once(self) -> None:
        task = self.swf.poll_for_activity_task(domain=self.domain, taskList={"name": self.task_list}, identity="worker")
        if task["taskToken"]:
            self.swf.respond_activity_task_completed(taskToken=task["taskToken"], result=self.work(task))
            self.tasks_left -= 1
            if not self.tasks_left:
                self.stopping.set()


def history(swf: Any, domain: str, workflow_id: str, run_id: str) -> list[dict[str, Any]]:
    return swf.get_workflow_execution_history(domain=domain, execution={"workflowId": workflow_id, "runId": run_id})["events"]


def attributes(event: dict[str, Any]) -> dict[str, Any]:
    """The `<type>EventAttributes` member of an event."""
    return next(value for key, value in event.items() if key.endswith("EventAttributes"))


def close_open_executions(swf: Any, domain: str) -> None:
    """Terminate what a test left open: an open task waiting for a worker would keep a shared
    server's auto clock from jumping (it is a deadline someone outside races)."""
    opened = swf.list_open_workflow_executions(domain=domain, startTimeFilter={"oldestDate": 0})["executionInfos"]
    for info in opened:
        swf.terminate_workflow_execution(domain=domain, **info["execution"])


def assert_shaped_as_the_api_reference_says(events: list[dict[str, Any]]) -> None:
    """Each event has exactly one attributes member, named after its type, holding only members of
    that shape and every required one (botocore's model of HistoryEvent)."""
    from botocore.session import get_session

    history_event = get_session().get_service_model("swf").shape_for("HistoryEvent")
    for event in events:
        member = event["eventType"][0].lower() + event["eventType"][1:] + "EventAttributes"
        assert set(event) == {"eventTimestamp", "eventType", "eventId", member}, event
        shape = history_event.members[member]
        assert set(event[member]) <= set(shape.members), event
        assert set(shape.required_members) <= set(event[member]), event
