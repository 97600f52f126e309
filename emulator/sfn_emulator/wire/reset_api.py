"""`POST /_emulator/reset`: forget everything between test modules of a suite that shares a server.

The body is empty or a JSON object; `{"account": "123456789012"}` resets only that account. Step
Functions' resources (state machines, executions, activities) and moto's (queues, tables, buckets)
go; the settings, the clock and registered callables stay. moto's own `POST /moto-api/reset`, which
suites written for moto send, resets Step Functions too. Answers `{"reset": "all"}` or
`{"reset": ACCOUNT}`; a bad body gets 400 `{"message": ...}` and resets nothing.

`POST /_emulator/stop-running` with `{"account": "123456789012"}` aborts that account's running
executions and keeps everything else (the pytest plugin ends a test's leftovers so); answers
`{"stopped": [executionArn, ...]}`.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterable

from flask import Flask, Response, request

RESET_PATH = "/_emulator/reset"
STOP_RUNNING_PATH = "/_emulator/stop-running"
MOTO_RESET_PATH = "/moto-api/reset"
_ACCOUNT_ID = re.compile(r"\d{12}")

Reset = Callable[[str | None], None]
StopRunning = Callable[[str], list[str]]
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class BadResetRequest(ValueError):
    """A body the reset cannot act on; the message says what to send."""


def parse_reset_account(raw: bytes) -> str | None:
    """The account a reset body names, or None for every account."""
    if not raw.strip():
        return None
    try:
        body = json.loads(raw)
    except ValueError as error:
        raise BadResetRequest(f"The request body is not valid JSON: {error}") from None
    if not isinstance(body, dict) or set(body) - {"account"}:
        raise BadResetRequest('The request body must be empty, {} or {"account": "<12-digit account id>"}')
    account = body.get("account")
    if account is not None and not (isinstance(account, str) and _ACCOUNT_ID.fullmatch(account)):
        raise BadResetRequest(f"account must be a 12-digit account id, not {json.dumps(account)}")
    return account


def mount_reset_api(app: Flask, reset_all: Reset, reset_step_functions: Reset, stop_running: StopRunning) -> None:
    """`reset_all(account)` answers `/_emulator/reset`; `reset_step_functions(None)` joins moto's reset;
    `stop_running(account)` answers `/_emulator/stop-running`."""

    @app.post(STOP_RUNNING_PATH)
    def stop() -> Response:
        try:
            account = parse_reset_account(request.get_data())
        except BadResetRequest as error:
            return _json({"message": str(error)}, 400)
        if account is None:
            return _json({"message": 'The request body must be {"account": "<12-digit account id>"}'}, 400)
        return _json({"stopped": stop_running(account)}, 200)

    @app.post(RESET_PATH)
    def reset() -> Response:
        try:
            account = parse_reset_account(request.get_data())
        except BadResetRequest as error:
            return _json({"message": str(error)}, 400)
        reset_all(account)
        return _json({"reset": account or "all"}, 200)

    app.wsgi_app = _AlsoOnMotoReset(app.wsgi_app, reset_step_functions)  # type: ignore[method-assign]


class _AlsoOnMotoReset:
    """WSGI middleware: a POST to moto's reset forgets Step Functions' resources too, then goes on to moto."""

    def __init__(self, app: WSGIApp, reset_step_functions: Reset) -> None:
        self.app = app
        self.reset_step_functions = reset_step_functions

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "POST" and environ.get("PATH_INFO") == MOTO_RESET_PATH:
            self.reset_step_functions(None)
        return self.app(environ, start_response)


def _json(body: dict[str, Any], status: int) -> Response:
    return Response(json.dumps(body), status=status, mimetype="application/json")
