"""The workloads: state machines, how each is run and timed, and how its result is checked.

A figure from an execution that ended wrongly is no figure: every attempt checks the status (and
output or stop date) it expects, and reports a problem instead of a time when they differ.
"""

from __future__ import annotations

import datetime
import json
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from servers import Client

ROLE_ARN = "arn:aws:iam::123456789012:role/benchmark"
POLL_INTERVAL = 0.01  # seconds between DescribeExecution calls while waiting for an execution
TERMINAL = {"SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED"}
PASS_ONLY = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}  # warm-ups, clock probes


@dataclass(frozen=True)
class Profile:
    """How much work a run does, and how long a server may take before it is given up on."""

    repeats: int  # a figure is the median of up to this many attempts...
    repeat_budget: float  # ...started while a scenario has used less than this many seconds
    loop_executions: int
    loop_iterations: int
    map_budget: float  # seconds
    clock_budget: float  # seconds, per virtual-clock machine
    api_requests: int  # per operation and attempt
    execution_budget: float = 120.0  # a safety net where a scenario has no budget of its own


FULL = Profile(repeats=3, repeat_budget=30.0, loop_executions=20, loop_iterations=50, map_budget=60.0,
               clock_budget=10.0, api_requests=500)
QUICK = Profile(repeats=1, repeat_budget=0.0, loop_executions=10, loop_iterations=50, map_budget=10.0,
                clock_budget=5.0, api_requests=300)


@dataclass
class Measurement:
    """One attempt's figure, or why there is none (given up on, or a wrong result)."""

    value: float | None
    gave_up_after: float | None = None
    problem: str | None = None
    note: str = ""
    per: tuple[int, str] | None = None  # (how many, of what): the note adds the server's processor time per one


@dataclass
class Execution:
    arn: str
    started: float  # perf_counter at StartExecution
    ended: float | None = None  # perf_counter when first seen in a terminal state
    description: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        return str(self.description.get("status", "RUNNING"))


def create_machine(client: Client, definition: dict[str, Any]) -> str:
    name = f"bench-{uuid.uuid4().hex[:12]}"
    return str(client.create_state_machine(name=name, definition=json.dumps(definition), roleArn=ROLE_ARN)[
        "stateMachineArn"
    ])


def start(client: Client, machine_arn: str, payload: Any) -> Execution:
    """StartExecution with an explicit name (moto names every unnamed execution 'None')."""
    started = time.perf_counter()
    response = client.start_execution(stateMachineArn=machine_arn, name=uuid.uuid4().hex, input=json.dumps(payload))
    return Execution(arn=response["executionArn"], started=started)


def wait_for(client: Client, executions: list[Execution], budget: float) -> bool:
    """Poll each execution until it ends; False if the budget (from the first start) ran out first."""
    deadline = min(execution.started for execution in executions) + budget
    for execution in executions:
        while True:
            execution.description = client.describe_execution(executionArn=execution.arn)
            if execution.status in TERMINAL:
                execution.ended = time.perf_counter()
                break
            if time.perf_counter() >= deadline:
                return False
            time.sleep(POLL_INTERVAL)
    return True


def history_events(client: Client, execution_arn: str) -> Iterator[dict[str, Any]]:
    for page in client.get_paginator("get_execution_history").paginate(executionArn=execution_arn, maxResults=1000):
        yield from page["events"]


def run_once(client: Client, machine_arn: str, payload: Any, budget: float) -> Execution:
    execution = start(client, machine_arn, payload)
    wait_for(client, [execution], budget)
    return execution


def unexpected(execution: Execution, status: str, output: Any = None) -> str | None:
    """What is wrong with an ended execution's outcome, or None."""
    if execution.status != status:
        detail = execution.description.get("error") or execution.description.get("cause") or ""
        return f"{execution.status} instead of {status} {detail}".strip()
    if output is not None and json.loads(execution.description.get("output", "null")) != output:
        return f"output {execution.description.get('output')!r}, expected {json.dumps(output)}"
    return None


@dataclass(frozen=True)
class Scenario:
    """One row of the table: `prepare` once per server (untimed), then `attempt` per repeat.

    `prepare` returns what its attempts need (a state machine's ARN, say), or "".
    """

    title: str
    unit: str  # "/s": higher is better; "s": lower is better
    prepare: Callable[[Client, Profile], str]
    attempt: Callable[[Client, str, Profile], Measurement]
    floor: bool = False  # whether the no-engine floor server can serve it (API calls only, no executions run)
    full_only: bool = False  # left out of --quick runs


# 1. State transitions per second on a Pass/Choice/intrinsics loop.

COUNTER_LOOP = {
    "Comment": "Counts to $.limit; every round is a Pass with three intrinsics and a compound Choice.",
    "StartAt": "Init",
    "States": {
        "Init": {"Type": "Pass", "Parameters": {"i": 0, "limit.$": "$.limit", "label": "start"}, "Next": "Step"},
        "Step": {
            "Type": "Pass",
            "Parameters": {
                "i.$": "States.MathAdd($.i, 1)",
                "limit.$": "$.limit",
                "label.$": "States.Format('step {} of {}', $.i, $.limit)",
                "pair.$": "States.Array($.i, $.limit)",
            },
            "Next": "Check",
        },
        "Check": {
            "Type": "Choice",
            "Choices": [
                {
                    "And": [
                        {"Variable": "$.i", "NumericLessThanPath": "$.limit"},
                        {"Variable": "$.label", "StringMatches": "step *"},
                    ],
                    "Next": "Step",
                }
            ],
            "Default": "Done",
        },
        "Done": {"Type": "Succeed"},
    },
}


def prepare_loop(client: Client, profile: Profile) -> str:
    machine_arn = create_machine(client, COUNTER_LOOP)
    run_once(client, machine_arn, {"limit": 2}, profile.execution_budget)  # warm-up
    return machine_arn


def attempt_loop(client: Client, machine_arn: str, profile: Profile) -> Measurement:
    limit = profile.loop_iterations
    first = time.perf_counter()
    executions = [start(client, machine_arn, {"limit": limit}) for _ in range(profile.loop_executions)]
    if not wait_for(client, executions, profile.execution_budget):
        return Measurement(None, gave_up_after=profile.execution_budget)
    wall = max(execution.ended or 0.0 for execution in executions) - first
    expected_output = {"i": limit, "limit": limit, "label": f"step {limit - 1} of {limit}", "pair": [limit - 1, limit]}
    for execution in executions:
        if problem := unexpected(execution, "SUCCEEDED", expected_output):
            return Measurement(None, problem=problem)
    transitions = sum(
        event["type"].endswith("StateEntered")
        for execution in executions
        for event in history_events(client, execution.arn)
    )
    return Measurement(transitions / wall, note=f"{transitions} transitions in {wall:.2f} s")


# 2. A large inline Map, as large as a Standard execution can run: N items write 4N + 6 history
# events, and AWS (and sfn-emulator) fail an execution at its 25,000th.

MAP_ITEMS = 6_000


def inline_map(items: int) -> dict[str, Any]:
    return {
        "StartAt": "Each",
        "States": {
            "Each": {
                "Type": "Map",
                "ItemProcessor": {
                    "ProcessorConfig": {"Mode": "INLINE"},
                    "StartAt": "Keep",
                    "States": {"Keep": {"Type": "Pass", "End": True}},
                },
                "ResultSelector": {"count.$": "States.ArrayLength($)", "last.$": f"$[{items - 1}]"},
                "End": True,
            }
        },
    }


def prepare_map(client: Client, profile: Profile) -> str:
    warm_up_arn = create_machine(client, inline_map(10))
    run_once(client, warm_up_arn, list(range(10)), profile.execution_budget)
    return create_machine(client, inline_map(MAP_ITEMS))


def attempt_map(client: Client, machine_arn: str, profile: Profile) -> Measurement:
    execution = run_once(client, machine_arn, list(range(MAP_ITEMS)), profile.map_budget)
    if execution.ended is None:
        return Measurement(None, gave_up_after=profile.map_budget)
    if problem := unexpected(execution, "SUCCEEDED", {"count": MAP_ITEMS, "last": MAP_ITEMS - 1}):
        return Measurement(None, problem=problem)
    return Measurement(execution.ended - execution.started)


# 3. Machines whose waiting happens on the clock.

Instant = datetime.datetime


@dataclass(frozen=True)
class ClockMachine:
    """A definition, and when an execution of it that started at a given instant should stop.

    Each is built by a function of the server's current time, which only absolute timestamps use.
    """

    definition: dict[str, Any]
    stops_at: Callable[[Instant], Instant]


def clock_scenario(title: str, build: Callable[[Instant], ClockMachine], status: str) -> Scenario:
    """A machine that should end with `status` at a known instant on the server's clock.

    The machine is built when an attempt runs, from the server's time then: an emulator with a
    virtual clock is ahead of the wall clock once it has skipped a wait. The stop date is checked to
    within a second: a fast figure from an emulator that skipped a wait instead of keeping time
    would be no figure at all.
    """

    def prepare(client: Client, profile: Profile) -> str:
        pass_only_arn = create_machine(client, PASS_ONLY)
        run_once(client, pass_only_arn, {}, profile.execution_budget)  # warm-up
        return pass_only_arn

    def attempt(client: Client, pass_only_arn: str, profile: Profile) -> Measurement:
        now = run_once(client, pass_only_arn, {}, profile.execution_budget).description["startDate"]
        machine = build(now)
        machine_arn = create_machine(client, machine.definition)
        execution = run_once(client, machine_arn, {}, profile.clock_budget)
        if execution.ended is None:
            needed = machine.stops_at(now) - now
            return Measurement(None, gave_up_after=profile.clock_budget,
                               note=f"needs {needed.total_seconds():,.0f} s of execution time")
        if problem := unexpected(execution, status):
            return Measurement(None, problem=problem)
        started, stopped = execution.description["startDate"], execution.description["stopDate"]
        expected = machine.stops_at(started)
        if abs((stopped - expected).total_seconds()) > 1.0:
            return Measurement(None, problem=f"stopped at {stopped.isoformat()}, expected {expected.isoformat()}")
        return Measurement(execution.ended - execution.started,
                           note=f"execution time {(stopped - started).total_seconds():,.0f} s")

    return Scenario(title, "s", prepare, attempt)


def waiting(seconds: int, timeout_seconds: int | None = None) -> Callable[[Instant], ClockMachine]:
    """A Wait of `seconds`; with a machine-wide TimeoutSeconds the execution stops at the timeout."""

    def build(now: Instant) -> ClockMachine:
        wait = {"Type": "Wait", "Seconds": seconds, "End": True}
        definition: dict[str, Any] = {"StartAt": "Wait", "States": {"Wait": wait}}
        if timeout_seconds is not None:
            definition["TimeoutSeconds"] = timeout_seconds
        delay = datetime.timedelta(seconds=min(seconds, timeout_seconds or seconds))
        return ClockMachine(definition, lambda started: started + delay)

    return build


def waiting_until_a_year_ahead(now: Instant) -> ClockMachine:
    until = (now + datetime.timedelta(days=365)).replace(microsecond=0)
    wait = {"Type": "Wait", "Timestamp": until.strftime("%Y-%m-%dT%H:%M:%SZ"), "End": True}
    return ClockMachine({"StartAt": "Wait", "States": {"Wait": wait}}, lambda started: until)


def retried_parallel(now: Instant) -> ClockMachine:
    """A Parallel whose branch always fails, retried 5 times: waits of 60, 120, 240, 480 and 960 s."""
    retry = {"ErrorEquals": ["States.ALL"], "IntervalSeconds": 60, "MaxAttempts": 5, "BackoffRate": 2}
    branches = [
        {"StartAt": "Fail", "States": {"Fail": {"Type": "Fail", "Error": "Broken", "Cause": "always"}}},
        {"StartAt": "Fine", "States": {"Fine": {"Type": "Pass", "End": True}}},
    ]
    definition = {
        "StartAt": "Both",
        "States": {"Both": {"Type": "Parallel", "Branches": branches, "Retry": [retry], "End": True}},
    }
    waits = datetime.timedelta(seconds=sum(60 * 2**attempt for attempt in range(5)))
    return ClockMachine(definition, lambda started: started + waits)


HEARTBEAT_SECONDS = 60


def advance_clock(client: Client, seconds: float) -> bool:
    """Move the server's clock as a test would (`POST /_emulator/clock`); False if it has no such control."""
    request = urllib.request.Request(f"{client.meta.endpoint_url}/_emulator/clock", method="POST",
                                     data=json.dumps({"advance": seconds}).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status == 200
    except urllib.error.URLError:  # HTTPError included: moto answers 404
        return False


def prepare_heartbeat(client: Client, profile: Profile) -> str:
    return str(client.create_activity(name=f"bench-{uuid.uuid4().hex[:12]}")["activityArn"])


def attempt_heartbeat(client: Client, activity_arn: str, profile: Profile) -> Measurement:
    """An activity worker takes the task and never sends a heartbeat: the task times out after
    HeartbeatSeconds. Auto mode leaves that deadline to the worker, so the test moves the clock
    past it, as docs/clock.md says; a server without a clock control can only be waited for."""
    task = {"Type": "Task", "Resource": activity_arn, "HeartbeatSeconds": HEARTBEAT_SECONDS, "End": True}
    machine_arn = create_machine(client, {"StartAt": "Work", "States": {"Work": task}})
    execution = start(client, machine_arn, {})
    worker_task = client.get_activity_task(activityArn=activity_arn, workerName="silent")
    if not worker_task.get("taskToken"):
        return Measurement(None, problem="the worker got no task")
    clock_moved = advance_clock(client, HEARTBEAT_SECONDS)
    if not wait_for(client, [execution], profile.clock_budget):
        return Measurement(None, gave_up_after=profile.clock_budget,
                           note=f"needs {HEARTBEAT_SECONDS} s of execution time")
    if problem := unexpected(execution, "FAILED"):
        return Measurement(None, problem=problem)
    started, stopped = execution.description["startDate"], execution.description["stopDate"]
    if abs((stopped - started).total_seconds() - HEARTBEAT_SECONDS) > 1.0:
        return Measurement(None, problem=f"timed out after {(stopped - started).total_seconds():.3f} s of execution time")
    how = "clock advanced by the test" if clock_moved else "waited in real time"
    return Measurement(execution.ended - execution.started, note=f"{how}; execution time {HEARTBEAT_SECONDS} s")


CLOCK_SCENARIOS = [
    clock_scenario("Wait 86,400 s", waiting(86_400), "SUCCEEDED"),
    clock_scenario("Wait until a timestamp 1 year ahead", waiting_until_a_year_ahead, "SUCCEEDED"),
    clock_scenario("Parallel failing, retried 5x from 60 s, backoff 2", retried_parallel, "FAILED"),
    clock_scenario("TimeoutSeconds 30 over a Wait of 3,600 s", waiting(3_600, timeout_seconds=30), "TIMED_OUT"),
    Scenario(f"Activity heartbeat timeout ({HEARTBEAT_SECONDS} s)", "s", prepare_heartbeat, attempt_heartbeat),
]


# 4. API round trips.

def api_scenario(title: str, call: Callable[[Client, str], object]) -> Scenario:
    """Sequential requests per second from one client, against a server holding one finished execution."""

    def prepare(client: Client, profile: Profile) -> str:
        execution = run_once(client, create_machine(client, PASS_ONLY), {}, profile.execution_budget)
        for _ in range(20):  # warm-up
            call(client, execution.arn)
        return execution.arn

    def attempt(client: Client, execution_arn: str, profile: Profile) -> Measurement:
        began = time.perf_counter()
        for _ in range(profile.api_requests):
            call(client, execution_arn)
        return Measurement(profile.api_requests / (time.perf_counter() - began))

    return Scenario(title, "/s", prepare, attempt, floor=True)


API_SCENARIOS = [
    api_scenario("DescribeExecution", lambda client, arn: client.describe_execution(executionArn=arn)),
    api_scenario("ListStateMachines", lambda client, _: client.list_state_machines()),
]


SCENARIOS: list[Scenario] = [
    Scenario("Transitions per second (Pass/Choice/intrinsics loop)", "/s", prepare_loop, attempt_loop),
    Scenario(f"Inline Map of {MAP_ITEMS:,} items, start to SUCCEEDED", "s", prepare_map, attempt_map),
    *CLOCK_SCENARIOS,
    *API_SCENARIOS,
]
