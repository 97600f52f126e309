"""What the console's pages show, read through the control plane's own operations in every account
and region the emulator has: the console is the local operator's view, so it is not scoped to one
caller. Each function answers a JSON-ready dict (times as the API's ISO-8601 text)."""

from __future__ import annotations

import json
from datetime import datetime
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Protocol

from sfn_emulator.asl.arns import split_arn
from sfn_emulator.clock.virtual_clock import format_time
from sfn_emulator.coverage import CoverageRecorder
from sfn_emulator.engine.outstanding import Outstanding
from sfn_emulator.protocol.history_events import details_of
from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import ApiError
from sfn_emulator.console.history import HistoryDigests
from sfn_emulator.wire.insight_api import drawn_path, machine_graph

EXECUTIONS_PER_PAGE = 25
RECENT_EXECUTIONS = 10  # a state machine's page lists its newest executions, as AWS's console does
PATH_SHOWN = 50  # the last states entered that an execution's page lists as its path
MAX_EVENTS_READ = 1000  # the most events one read answers
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


class Triggers(Protocol):
    """What starts executions besides API calls, as an extension knows it (the local EventBridge)."""

    def targeting(self, state_machine_arn: str) -> list[dict[str, Any]]:
        """The rules and schedules whose targets include the machine: `arn`, `kind`, `expression`
        (a schedule expression or an event pattern) and `next` (the next firing, or None)."""
        ...

    def started_by(self, execution_arn: str) -> str | None:
        """The ARN of the rule or schedule that started the execution, if one did."""
        ...


class ConsoleViews:
    """The console's reads over the service, the engine's outstanding work and the coverage, and what
    `triggers` tells of rules and schedules."""

    def __init__(self, service: StepFunctionsService, outstanding: Callable[[], Outstanding],
                 coverage: CoverageRecorder, triggers: Triggers | None = None) -> None:
        self._service = service
        self._outstanding = outstanding
        self._coverage = coverage
        self._triggers = triggers
        self._digests = HistoryDigests()

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
        recent = self._call("ListExecutions", arn, stateMachineArn=arn, maxResults=RECENT_EXECUTIONS)["executions"] \
            if described["type"] == "STANDARD" else []
        return plain({"stateMachine": described, "graph": machine_graph(self._service, arn, "mermaid"),
                      "coverage": coverage, "recentExecutions": recent,
                      "triggers": self._triggers.targeting(arn) if self._triggers is not None else [],
                      **self._versions_and_aliases(arn)})

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
        """An execution's page without its events (read a page of them with `events`): its path as the
        last `PATH_SHOWN` states entered."""
        described = self._call("DescribeExecution", arn, executionArn=arn)
        execution = self._service.execution_record(arn)
        graph, path = self._digests.path(execution)
        digest = self._digests.of(execution)
        map_runs = _every(lambda **p: self._call("ListMapRuns", arn, executionArn=arn, **p), "mapRuns")
        children = [found for found in map(self._described_if_kept, list(digest.children)) if found is not None]
        return plain({"execution": described, "startedBy": self._started_by(execution), "eventCount": len(digest.states),
                      "path": digest.entered[-PATH_SHOWN:], "pathLength": len(digest.entered),
                      "graph": drawn_path(execution, graph, path, "mermaid"),
                      "children": children, "mapRuns": map_runs,
                      "callbacks": [c for c in self.waiting()["callbacks"] if c["executionArn"] == arn]})

    def _started_by(self, execution: Any) -> dict[str, str]:
        """What started an execution: a rule or schedule, a parent execution (a nested or Map Run child's),
        or an API call."""
        found = self._triggers.started_by(execution.arn) if self._triggers is not None else None
        if found is not None:
            return {"kind": "schedule" if ":scheduler:" in found else "rule", "arn": found}
        if execution.parent_execution_arn:
            return {"kind": "execution", "arn": execution.parent_execution_arn}
        return {"kind": "api", "arn": ""}

    def events(self, arn: str, *, after: int, limit: int) -> dict[str, Any]:
        """The events with ids after `after`, at most `limit` (ids are positions in the history)."""
        if not 1 <= limit <= MAX_EVENTS_READ:
            raise ValueError(f"limit must be a whole number from 1 to {MAX_EVENTS_READ}, not {limit}")
        self._call("DescribeExecution", arn, executionArn=arn)  # the API's answer for an unknown ARN
        execution = self._service.execution_record(arn)
        digest = self._digests.of(execution)
        read = execution.history[after:after + limit]
        states = digest.states[after:after + len(read)]
        return plain({"events": event_rows(read, states, execution.start_date), "eventCount": len(digest.states)})

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
        try:
            return self._digests.of(self._service.execution_record(execution_arn)).state_awaiting(token)
        except ApiError:  # deleted while the engine still holds its token
            return None


def event_rows(events: Sequence[Mapping[str, Any]], states: Sequence[str | None], start: datetime) -> list[dict[str, Any]]:
    """History events as the event table shows them: with the state each belongs to (`states`, from the
    execution's digest) and the milliseconds since the execution started."""
    rows = []
    for event, state in zip(events, states):
        details = details_of(event) or {}
        rows.append({"id": event["id"], "type": event["type"], "state": state, "timestamp": event["timestamp"],
                     "sinceStartMs": int((event["timestamp"] - start).total_seconds() * 1000),
                     "details": {key: _pretty(value) if key in ("input", "output", "cause", "parameters") else value
                                 for key, value in details.items()}})
    return rows


def _pretty(text: Any) -> Any:
    """JSON text indented for reading; other text as it is."""
    if not isinstance(text, str):
        return text
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text
