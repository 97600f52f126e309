"""In-process mode: boto3 Step Functions (and Amazon SWF) clients reach an emulator in this process with no socket.

    from sfn_emulator.config import Settings
    from sfn_emulator.inprocess import intercept
    from sfn_emulator.runtime import Emulator

    with Emulator(Settings()) as local, intercept(local):
        boto3.client("stepfunctions", region_name="us-east-1").list_state_machines()

While `intercept` is active, every request a Step Functions client sends to AWS's own endpoint
(`states.<region>.amazonaws.com`, and `sync-states.<region>...` where botocore sends
StartSyncExecution and TestState), and every request an SWF client sends to `swf.<region>...`, is
handed to the emulator's WSGI app and its answer returned to
botocore, exactly as the HTTP server would answer it. Clients with an explicit `endpoint_url`
(a server on localhost, say) and clients of other services are left alone: they go where they
would have gone, or to moto when moto's `mock_aws` is active (moto is told to leave Step
Functions requests alone meanwhile). Those other clients' calls are told to the emulator's
EventBridge (`sfn_emulator.eventbridge`), so that a rule or schedule made in moto through `mock_aws`
is heard as one made over HTTP.

How: one botocore `before-send` handler for the `sfn` service, the way moto intercepts requests.
botocore gives each new session the handlers listed in `BUILTIN_HANDLERS`, and each client a copy
of its session's handlers, so the handler is installed when this module is first imported (and on
boto3's default session if that exists already): clients created after that are reached; a client
or session created before it is not. Import this module (or use the pytest fixture) before the
code under test creates its clients at import time.
"""

from __future__ import annotations

import io
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Callable, Iterable
from urllib.parse import urlsplit

import botocore.handlers
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from moto.core.config import default_user_config
from urllib3 import HTTPResponse
from werkzeug.test import Client

from sfn_emulator.resources.aws import OWN_CLIENT_CONTEXT_KEY

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

# AWS's Step Functions hosts in every partition, and their `sync-` data-plane twins.
STEP_FUNCTIONS_HOST = re.compile(
    r"^(?:sync-)?states(?:-fips)?\.[a-z0-9-]+\.(?:amazonaws\.com(?:\.cn)?|api\.aws|c2s\.ic\.gov|sc2s\.sgov\.gov)$"
)
SWF_HOST = re.compile(r"^swf(?:-fips)?\.[a-z0-9-]+\.(?:amazonaws\.com(?:\.cn)?|api\.aws|c2s\.ic\.gov|sc2s\.sgov\.gov)$")
MOTO_SERVICE_NAMES = ("stepfunctions", "swf")
# botocore's events for every request of a Step Functions client and of an SWF client
_EVENTS = ("before-send.sfn", "before-send.swf")
_ANSWERED = "after-call"
_HANDLER_ID = "sfn-emulator-inprocess"
# SigV4 `Credential=AKID/...`: the access key id that names the caller's account.
_ACCESS_KEY = re.compile(r"(Credential=)[^/,\s]*/")


class _Target:
    """An emulator requests are answered by, and the account they act in (None: as their credentials say)."""

    def __init__(self, app: WSGIApp, account: str | None, heard: Callable[[], None] | None) -> None:
        self.client = Client(app, use_cookies=False)
        self.account = account
        self.heard = heard  # told of other services' calls (moto's, under `mock_aws`)

    def answer(self, request: AWSPreparedRequest) -> AWSResponse:
        url = urlsplit(request.url)
        headers = {name: _text(value) for name, value in request.headers.items()}
        if self.account is not None and "Authorization" in headers:
            headers["Authorization"] = _ACCESS_KEY.sub(rf"\g<1>{self.account}/", headers["Authorization"], count=1)
        response = self.client.open(
            url.path or "/",
            base_url=f"{url.scheme}://{url.netloc}",
            query_string=url.query,
            method=request.method,
            headers=headers,
            data=_body_bytes(request.body),
        )
        raw = HTTPResponse(body=io.BytesIO(response.get_data()), headers=list(response.headers.items()),
                           status=response.status_code, preload_content=False)
        return AWSResponse(request.url, response.status_code, raw.headers, raw)


_lock = threading.Lock()
_targets: list[_Target] = []  # a stack: the innermost `intercept` answers
_added_to_moto_passthrough = False  # whether we, not the user, listed Step Functions there


@contextmanager
def intercept(emulator: Any, *, account: str | None = None) -> Iterator[None]:
    """Send Step Functions requests to `emulator` (a runtime `Emulator`, or any WSGI app serving the
    API) while the block runs, from every thread of the process.

    With `account`, intercepted requests act in that account whatever their credentials (the
    pytest plugin uses this to give each test an account of its own); otherwise, as over HTTP, an
    access key id of 12 digits names the account and any other key acts in the emulator's default.
    """
    eventbridge = getattr(emulator, "eventbridge", None)
    target = _Target(getattr(emulator, "app", emulator), account,
                     eventbridge.schedules_changed if eventbridge is not None else None)
    with _lock:
        if not _targets:
            _tell_moto_to_pass_step_functions_through(True)
        _targets.append(target)
    try:
        yield
    finally:
        with _lock:
            _targets.remove(target)
            if not _targets:
                _tell_moto_to_pass_step_functions_through(False)


def _tell_moto_to_pass_step_functions_through(passing: bool) -> None:
    """botocore calls every `before-send` handler, moto's too, and uses the first answer: ours comes
    first, but moto's `mock_aws` would still act on the request in its own Step Functions (or SWF)
    backend. moto's documented passthrough setting makes it leave them alone while we answer."""
    global _added_to_moto_passthrough
    services = default_user_config["core"]["passthrough"]["services"]
    if passing and not any(name in services for name in MOTO_SERVICE_NAMES):
        services.extend(MOTO_SERVICE_NAMES)
        _added_to_moto_passthrough = True
    elif not passing and _added_to_moto_passthrough:
        for name in MOTO_SERVICE_NAMES:
            if name in services:
                services.remove(name)
        _added_to_moto_passthrough = False


def is_step_functions_endpoint(url: str) -> bool:
    """Whether `url` is AWS's own Step Functions endpoint (what a client without `endpoint_url` uses)."""
    return STEP_FUNCTIONS_HOST.match(urlsplit(url).hostname or "") is not None


def is_swf_endpoint(url: str) -> bool:
    """Whether `url` is AWS's own Amazon SWF endpoint."""
    return SWF_HOST.match(urlsplit(url).hostname or "") is not None


def _answer_in_process(request: AWSPreparedRequest, **kwargs: Any) -> AWSResponse | None:
    """The `before-send` handler: an answer ends botocore's sending; None lets the request go on."""
    with _lock:
        target = _targets[-1] if _targets else None
    if target is None or not (is_step_functions_endpoint(request.url) or is_swf_endpoint(request.url)):
        return None
    return target.answer(request)


def _answered(model: Any, context: dict[str, Any], **kwargs: Any) -> None:
    """The `after-call` handler: another service's call, answered (by moto, under `mock_aws`) while an
    emulator intercepts, may have changed a rule or schedule its EventBridge watches."""
    with _lock:
        target = _targets[-1] if _targets else None
    if target is None or target.heard is None or context.get(OWN_CLIENT_CONTEXT_KEY):
        return
    if model.service_model.service_name in ("events", "scheduler"):
        target.heard()


def _text(value: str | bytes) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value  # HTTP headers are Latin-1


def _body_bytes(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, (bytes, bytearray)):
        return bytes(body)
    return bytes(body.read())  # a file-like body


def _install() -> None:
    boto3 = sys.modules.get("boto3")
    default_session = getattr(boto3, "DEFAULT_SESSION", None)
    for event in _EVENTS:
        botocore.handlers.BUILTIN_HANDLERS.append((event, _answer_in_process, botocore.handlers.REGISTER_FIRST))
        if default_session is not None:
            default_session.events.register_first(event, _answer_in_process, unique_id=f"{_HANDLER_ID}-{event}")
    botocore.handlers.BUILTIN_HANDLERS.append((_ANSWERED, _answered))
    if default_session is not None:
        default_session.events.register(_ANSWERED, _answered, unique_id=f"{_HANDLER_ID}-{_ANSWERED}")


_install()
