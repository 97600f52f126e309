"""`/_emulator/console/`: a web console for the local operator, served by the emulator itself.

The page (`static/index.html`, plain HTML, CSS and JavaScript shipped in this package, Mermaid from
`sfn_emulator.graphs`) reads JSON from `/_emulator/console/api/...` and polls it to stay live. Each
read costs what the page shows: an execution's page reads its events a page at a time
(`events?arn=...&after=<event id>&limit=<n>`, ids being positions in the history), and histories
are digested once per event (`history`).
Every action is a JSON POST to `/_emulator/console/api/<action>`; the actions run the Step
Functions operations they are named after, checked by the same request decoders as the API, in
the account and region of the ARN they act on, and answer the operation's result or
`{"code", "message"}` with status 400 (AWS's error codes).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from flask import Flask, Response, redirect, request
from werkzeug.wrappers import Response as BaseResponse

from sfn_emulator.clock.virtual_clock import Clock
from sfn_emulator.coverage import CoverageRecorder
from sfn_emulator.engine import Engine
from sfn_emulator.graphs.render import MERMAID_SCRIPT
from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.api_model import service_model
from sfn_emulator.service.errors import ApiError
from sfn_emulator.wire.app import SERVICE_NAME, parse_body
from sfn_emulator.wire.clock_api import ClockChange, apply_clock_change
from sfn_emulator.console.address import CONSOLE_PATH
from sfn_emulator.console.views import ConsoleViews, Triggers, plain, scope_of
from sfn_emulator.protocol.validation import RequestDecoder, compile_request_decoders

API_PATH = CONSOLE_PATH + "api/"
EVENTS_PER_READ = 100  # an events read's default `limit`: a page of the event table
CONSOLE_WORKER = "sfn-emulator-console"  # the workerName of activity tasks taken from the console
_FILES = {"index.html": "text/html; charset=utf-8", "console.js": "text/javascript; charset=utf-8",
          "console.css": "text/css; charset=utf-8"}
# action -> (operation, the request member naming what it acts on: its ARN gives account and region)
ACTIONS = {
    "stop-execution": ("StopExecution", "executionArn"),
    "redrive-execution": ("RedriveExecution", "executionArn"),
    "send-task-success": ("SendTaskSuccess", None),
    "send-task-failure": ("SendTaskFailure", None),
    "send-task-heartbeat": ("SendTaskHeartbeat", None),
    "take-activity-task": ("GetActivityTask", "activityArn"),
}


class BadConsoleRequest(ValueError):
    """A request the console cannot serve; the message says why."""


class ConsoleActions:
    """The console's POSTs: Step Functions operations, and the clock moved to its next timer."""

    def __init__(self, service: StepFunctionsService, engine: Engine, clock: Clock) -> None:
        self._service = service
        self._engine = engine
        self._clock = clock
        operations = {operation for operation, _ in ACTIONS.values()}
        self._decoders: dict[str, RequestDecoder] = {
            name: decoder for name, decoder in compile_request_decoders(service_model(SERVICE_NAME)).items()
            if name in operations}

    def run(self, action: str, body: dict[str, Any]) -> dict[str, Any]:
        if action == "advance-clock-to-next-timer":
            return self._advance_to_next_timer()
        if action not in ACTIONS:
            raise BadConsoleRequest(f"Unknown action {action!r}; the console's actions: "
                                    f"{', '.join([*ACTIONS, 'advance-clock-to-next-timer'])}")
        operation, arn_member = ACTIONS[action]
        params = self._decoders[operation](body)
        if action == "take-activity-task":
            params.setdefault("workerName", CONSOLE_WORKER)
            self._refuse_empty_queue(params["activityArn"])
        account, region = scope_of(params[arn_member]) if arn_member else \
            (self._service.default_account, self._service.default_region)
        return plain(self._service.handle(operation, params, account=account, region=region))

    def _refuse_empty_queue(self, activity_arn: str) -> None:
        """GetActivityTask holds a worker's poll for a minute when no task waits; the console only
        takes a task it showed."""
        if not any(task.activity_arn == activity_arn for task in self._engine.outstanding().activity_tasks):
            raise BadConsoleRequest(f"No task of {activity_arn} is waiting for a worker")

    def _advance_to_next_timer(self) -> dict[str, Any]:
        due = self._engine.outstanding().next_timer
        if due is None:
            raise BadConsoleRequest("No timer is pending: nothing waits for the clock")
        apply_clock_change(ClockChange(set=max(due, self._clock.now())), self._clock, self._engine)
        return plain({"now": self._clock.now(), "mode": self._clock.mode})


def mount_console(app: Flask, service: StepFunctionsService, engine: Engine, clock: Clock,
                  coverage: CoverageRecorder, triggers: Triggers | None = None) -> None:
    """Serve the console's page, its files and its JSON API on `app`; `triggers` tells what rules and
    schedules start executions (the runtime's local EventBridge)."""
    views = ConsoleViews(service, engine.outstanding, coverage, triggers)
    actions = ConsoleActions(service, engine, clock)

    @app.get(CONSOLE_PATH.rstrip("/"))
    def console_root() -> BaseResponse:
        return redirect(CONSOLE_PATH, code=308)

    @app.get(CONSOLE_PATH)
    @app.get(CONSOLE_PATH + "<name>")
    def console_file(name: str = "index.html") -> Response:
        from importlib import resources  # (with tempfile and zipfile: on the first page asked for)

        if name == MERMAID_SCRIPT:
            script = resources.files("sfn_emulator.graphs").joinpath("static", MERMAID_SCRIPT).read_bytes()
            return Response(script, content_type="text/javascript; charset=utf-8")
        if name not in _FILES:
            return _json({"message": f"No console file {name!r}"}, 404)
        text = resources.files("sfn_emulator.console").joinpath("static", name).read_bytes()
        return Response(text, content_type=_FILES[name], headers={"Cache-Control": "no-cache"})

    reads: dict[str, Callable[[], dict[str, Any]]] = {
        "state-machines": views.state_machines,
        "state-machine": lambda: views.state_machine(_argument("arn")),
        "executions": lambda: views.executions(status=request.args.get("status") or None,
                                               name=request.args.get("name", ""),
                                               machine_arn=request.args.get("stateMachineArn") or None,
                                               page=_page(request.args.get("page", "1"))),
        "execution": lambda: views.execution(_argument("arn")),
        "events": lambda: views.events(_argument("arn"), after=_whole_number("after", "0"),
                                       limit=_whole_number("limit", str(EVENTS_PER_READ))),
        "map-run": lambda: views.map_run(_argument("arn")),
        "waiting": views.waiting,
    }

    @app.get(API_PATH + "<view>")
    def console_read(view: str) -> Response:
        if view not in reads:
            return _json({"message": f"No console view {view!r}; the views: {', '.join(reads)}"}, 404)
        return _answer(reads[view], missing_status=404)

    @app.post(API_PATH + "<action>")
    def console_action(action: str) -> Response:
        return _answer(lambda: actions.run(action, parse_body(request.get_data(cache=False))), missing_status=None)


def _answer(read: Callable[[], dict[str, Any]], *, missing_status: int | None) -> Response:
    """The JSON of `read()`, or its error: with `missing_status`, a resource that does not exist
    answers that status (a page's 404); otherwise the API's own."""
    try:
        return _json(read())
    except ApiError as error:
        missing = missing_status is not None and (error.code.endswith("DoesNotExist") or error.code == "ResourceNotFound")
        status = missing_status if missing else error.status
        return _json({"code": error.code, "message": error.message or error.code}, status)
    except (BadConsoleRequest, ValueError) as error:
        return _json({"message": str(error)}, 400)


def _argument(name: str) -> str:
    value = request.args.get(name)
    if not value:
        raise BadConsoleRequest(f"Give the query parameter {name}")
    return value


def _page(text: str) -> int:
    if not text.isdigit():
        raise BadConsoleRequest(f"page must be a positive whole number, not {text!r}")
    return int(text)


def _whole_number(name: str, default: str) -> int:
    text = request.args.get(name, default)
    if not text.isdigit():
        raise BadConsoleRequest(f"{name} must be a whole number, not {text!r}")
    return int(text)


def _json(body: dict[str, Any], status: int = 200) -> Response:
    return Response(json.dumps(body), status=status, content_type="application/json")
