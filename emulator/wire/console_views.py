"""What the console's pages show, read through the control plane's own operations in every account
and region the emulator has: the console is the local operator's view, so it is not scoped to one
caller. Each function answers a JSON-ready dict (times as the API's ISO-8601 text)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Callable

from sfn_emulator.asl.arns import split_arn
from sfn_emulator.clock import format_time
from sfn_emulator.coverage import CoverageRecorder
from sfn_emulator.engine.outstanding import Outstanding
from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import ApiError
from sfn_emulator.wire.insight_api import execution_graph, machine_graph

EXECUTIONS_PER_PAGE = 25
STATUSES = ("RUNNING", "SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED", "PENDING_REDRIVE")
_PAGE_SIZE = 1000  # the largest maxResults the API takes


def plain(value: Any) -> Any:
    """The value with datetimes as API time text, for json.dumps."""
    if isinstance(value, datetime):
        return format_time(value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def scope_of(arn: str) -> tuple[str, str]:
    """(account, region) of an ARN, where every operation on it must run."""
    fields = split_arn(arn)
    if fields is None:
        raise ValueError(f"not an ARN: {arn!r}")
    return fields.account, fields.region


def _every(page_of: Callable[..., dict[str, Any]], key: str, **params: Any) -> list[dict[str, Any]]:
    """Every item of a paginated listing."""
    items: list[dict[str, Any]] = []
    token: str | None = None
    while True:
        answer = page_of(maxResults=_PAGE_SIZE, **params, **({"nextToken": token} if token else {}))
        items.extend(answer[key])
        token = answer.get("nextToken")
        if not token:
            return items


class ConsoleViews:
    """The console's reads over the service, the engine's outstanding work and the coverage."""

    def __init__(self, service: StepFunctionsService, outstanding: Callable[[], Outstanding],
                 coverage: CoverageRecorder) -> None:
        self._service = service
        self._outstanding = outstanding
        self._coverage = coverage

    def _call(self, operation: str, arn: str, **params: Any) -> dict[str, Any]:
        account, region = scope_of(arn)
        return self._service.handle(operation, params, account=account, region=region)

    def _machines(self) -> list[dict[str, Any]]:
        machines = []
        for account, region in self._service.scopes():
            listed = _every(lambda **p: self._service.list_state_machines(account=account, region=region, **p),
                            "stateMachines")
            machines.extend({**machine, "account": account, "region": region} for machine in listed)
        return machines

    def state_machines(self) -> dict[str, Any]:
        rows = []
        for machine in self._machines():
            arn = machine["stateMachineArn"]
            published = self._versions_and_aliases(arn)
            rows.append({**machine, "versions": [v["stateMachineVersionArn"] for v in published["versions"]],
                         "aliases": [a["stateMachineAliasArn"] for a in published["aliases"]]})
        return plain({"stateMachines": rows})

    def state_machine(self, arn: str) -> dict[str, Any]:
        described = self._call("DescribeStateMachine", arn, stateMachineArn=arn)
        described["definition"] = _pretty(described["definition"])
        # Coverage is kept by name and definition: every definition this name ran with, without its text.
        coverage = [{key: value for key, value in machine.items() if key != "definition"}
                    for machine in self._coverage.json()["stateMachines"] if machine["name"] == described["name"]]
        return plain({"stateMachine": described, "graph": machine_graph(self._service, arn, "mermaid"),
                      "coverage": coverage, **self._versions_and_aliases(arn)})

    def _versions_and_aliases(self, arn: str) -> dict[str, Any]:
        versions = _every(lambda **p: self._call("ListStateMachineVersions", arn, stateMachineArn=arn, **p),
                          "stateMachineVersions")
        aliases = _every(lambda **p: self._call("ListStateMachineAliases", arn, stateMachineArn=arn, **p),
                         "stateMachineAliases")
        return {"versions": versions, "aliases": aliases}

    def _executions(self, machine_arns: list[str], status: str | None) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for arn in machine_arns:
            found.extend(_every(lambda **p: self._call("ListExecutions", arn, stateMachineArn=arn, **p), "executions",
                                **({"statusFilter": status} if status else {})))
        return found

    def executions(self, *, status: str | None, name: str, machine_arn: str | None, page: int) -> dict[str, Any]:
        """Executions newest first, filtered by status and by a substring of the name, one page of them."""
        if status is not None and status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}, not {status!r}")
        machine_arns = [machine_arn] if machine_arn else \
            [m["stateMachineArn"] for m in self._machines() if m["type"] == "STANDARD"]
        found = [e for e in self._executions(machine_arns, status) if name.lower() in e["name"].lower()]
        found.sort(key=lambda e: (e["startDate"], e["executionArn"]), reverse=True)
        pages = max(1, -(-len(found) // EXECUTIONS_PER_PAGE))
        page = min(max(page, 1), pages)
        shown = found[(page - 1) * EXECUTIONS_PER_PAGE: page * EXECUTIONS_PER_PAGE]
        return plain({"executions": shown, "total": len(found), "page": page, "pages": pages})

    def execution(self, arn: str) -> dict[str, Any]:
        described = self._call("DescribeExecution", arn, executionArn=arn)
        events = _every(lambda **p: self._call("GetExecutionHistory", arn, executionArn=arn, **p), "events")
        map_runs = _every(lambda **p: self._call("ListMapRuns", arn, executionArn=arn, **p), "mapRuns")
        return plain({"execution": described, "events": event_rows(events, described["startDate"]),
                      "graph": execution_graph(self._service, arn, "mermaid"),
                      "children": self._children(events), "mapRuns": map_runs,
                      "callbacks": [c for c in self.waiting()["callbacks"] if c["executionArn"] == arn]})

    def _children(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Executions this one started with `states:startExecution` tasks, as its history names them:
        the `ExecutionArn` in the output of their TaskSubmitted or TaskSucceeded events."""
        arns: list[str] = []
        for event in events:
            details = event.get("taskSubmittedEventDetails") or event.get("taskSucceededEventDetails") or {}
            if details.get("resourceType") == "states" and details.get("resource", "").startswith("startExecution"):
                child = _json_object(details.get("output")).get("ExecutionArn")
                if isinstance(child, str) and child not in arns:
                    arns.append(child)
        return [described for described in map(self._described_if_kept, arns) if described is not None]

    def _described_if_kept(self, execution_arn: str) -> dict[str, Any] | None:
        """DescribeExecution, or None for an execution deleted with its machine or past retention."""
        try:
            return self._call("DescribeExecution", execution_arn, executionArn=execution_arn)
        except ApiError:
            return None

    def map_run(self, arn: str) -> dict[str, Any]:
        described = self._call("DescribeMapRun", arn, mapRunArn=arn)
        children = _every(lambda **p: self._call("ListExecutions", arn, mapRunArn=arn, **p), "executions")
        return plain({"mapRun": described, "executions": children})

    def waiting(self) -> dict[str, Any]:
        outstanding = self._outstanding()
        callbacks = [{"taskToken": wait.token, "executionArn": wait.execution_arn,
                      "stateName": self._waiting_state(wait.execution_arn, wait.token)} for wait in outstanding.callbacks]
        tasks = [{"activityArn": task.activity_arn, "executionArn": task.execution_arn, "input": _pretty(task.input)}
                 for task in outstanding.activity_tasks]
        return plain({"callbacks": callbacks, "activityTasks": tasks, "nextTimer": outstanding.next_timer})

    def _waiting_state(self, execution_arn: str, token: str) -> str | None:
        """The state awaiting `token`: that of the last event naming it (the parameters that handed it
        out), else the state of the execution's last event in one (an activity task a worker took)."""
        execution = self._service.execution_record(execution_arn)
        rows = event_rows(list(execution.history), execution.start_date)
        naming = [row for row in rows if token in json.dumps(row["details"], default=str)]
        in_a_state = naming or [row for row in rows if row["state"]]
        return in_a_state[-1]["state"] if in_a_state else None


def event_rows(events: list[dict[str, Any]], start: datetime) -> list[dict[str, Any]]:
    """History events as the event table shows them: the state each belongs to (the one its branch
    last entered, following `previousEventId`; a Parallel's or Map's own events, which AWS links to
    the last event of a branch or iteration, to the latest such state still open) and the
    milliseconds since the execution started."""
    state_of: dict[int, str | None] = {}
    open_states: list[tuple[str, str]] = []  # (state type, name) entered and not yet exited, in order
    rows = []
    for event in events:
        details_key = next((key for key in event if key.endswith("EventDetails")), None)
        details = event.get(details_key, {}) if details_key else {}
        kind: str = event["type"]
        named = event.get("stateEnteredEventDetails") or event.get("stateExitedEventDetails")
        owner = "Parallel" if kind.startswith("Parallel") else "Map" if kind.startswith("Map") and not kind.startswith("MapRun") else None
        if named:
            state = named["name"]
        elif owner is not None:
            state = next((name for type_, name in reversed(open_states) if type_ == owner), None)
        else:
            state = state_of.get(event.get("previousEventId", 0))
        if "stateEnteredEventDetails" in event:
            open_states.append((kind.removesuffix("StateEntered"), state))
        elif "stateExitedEventDetails" in event and (kind.removesuffix("StateExited"), state) in open_states:
            exited = (kind.removesuffix("StateExited"), state)
            del open_states[len(open_states) - 1 - open_states[::-1].index(exited)]
        state_of[event["id"]] = None if "stateExitedEventDetails" in event else state
        rows.append({"id": event["id"], "type": event["type"], "state": state, "timestamp": event["timestamp"],
                     "sinceStartMs": int((event["timestamp"] - start).total_seconds() * 1000),
                     "details": {key: _pretty(value) if key in ("input", "output", "cause", "parameters") else value
                                 for key, value in details.items()}})
    return rows


def _json_object(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _pretty(text: Any) -> Any:
    """JSON text indented for reading; other text as it is."""
    if not isinstance(text, str):
        return text
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text
