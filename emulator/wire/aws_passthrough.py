"""Other AWS services on the emulator's own endpoint, LocalStack-style: moto's server, in-process.

A boto3 client for SQS, SNS, DynamoDB, S3, EventBridge, Secrets Manager... pointed at the emulator's
URL reaches moto's in-memory backends, the same ones Task states use (`sfn_emulator.resources.aws`), so
a test can create a queue over HTTP, run a workflow that sends to it, and read the message back.

Which requests are Step Functions' is decided from what every SDK sends: the `X-Amz-Target` prefix
`AWSStepFunctions.` or, failing a target, the SigV4 credential scope's service `states` (in the
`Authorization` header or, for presigned URLs, the `X-Amz-Credential` query parameter). Requests
naming another service, and moto's own `/moto-api/` (e.g. `POST /moto-api/reset`), go to moto;
everything else (health checks, unsigned requests) stays with the Step Functions app.

As in the Step Functions API, a twelve-digit access key id names the caller's account; any other
key acts in the emulator's default account.

Mounting is one call on the Flask app:  `mount_aws_passthrough(app, default_account=...)`.
"""

from __future__ import annotations

import re
import threading
from typing import Any, Callable, Iterable
from urllib.parse import parse_qs

from sfn_emulator.resources.aws import MOTO_ACCOUNT_HEADER

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

STEP_FUNCTIONS_TARGET_PREFIX = "AWSStepFunctions."
STEP_FUNCTIONS_SIGNING_NAME = "states"
MOTO_API_PATH = "/moto-api/"

# Credential=AKID/20240101/us-east-1/sqs/aws4_request: (access key id, signing service)
_CREDENTIAL_SCOPE = re.compile(r"Credential=([^/,\s]*)/[^/,\s]*/[^/,\s]*/([^/,\s]+)/")
_PRESIGNED_CREDENTIAL = re.compile(r"^([^/]*)/[^/]*/[^/]*/([^/]+)/")
_ACCOUNT_ID = re.compile(r"^\d{12}$")
_ENVIRON_ACCOUNT_KEY = "HTTP_" + MOTO_ACCOUNT_HEADER.upper().replace("-", "_")


def make_passthrough_app(*, default_account: str) -> WSGIApp:
    """moto's multi-service server app, acting for the caller's account (see the module docstring).

    moto's server is made (and moto imported) on the first request for another service: a
    server most runs never send one to starts without it."""
    moto_apps: list[WSGIApp] = []
    lock = threading.Lock()

    def moto_app() -> WSGIApp:
        with lock:
            if not moto_apps:
                from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

                moto_apps.append(DomainDispatcherApplication(create_backend_app))
            return moto_apps[0]

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        access_key, _ = credential_scope(environ)
        if _ENVIRON_ACCOUNT_KEY not in environ:
            environ[_ENVIRON_ACCOUNT_KEY] = access_key if access_key and _ACCOUNT_ID.match(access_key) \
                else default_account
        return moto_app()(environ, start_response)

    return serve


class AwsPassthrough:
    """WSGI middleware: Step Functions requests to `states_app`, other AWS services to `passthrough_app`."""

    def __init__(self, states_app: WSGIApp, passthrough_app: WSGIApp) -> None:
        self.states_app = states_app
        self.passthrough_app = passthrough_app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        app = self.passthrough_app if is_other_aws_service(environ) else self.states_app
        return app(environ, start_response)


def mount_aws_passthrough(app: Any, *, default_account: str) -> None:
    """Serve other AWS services on `app` (a Flask app) besides Step Functions."""
    app.wsgi_app = AwsPassthrough(app.wsgi_app, make_passthrough_app(default_account=default_account))


def is_other_aws_service(environ: dict[str, Any]) -> bool:
    """Whether a request is for an AWS service other than Step Functions (or for moto's own API)."""
    if str(environ.get("PATH_INFO", "")).startswith(MOTO_API_PATH):
        return True
    target = environ.get("HTTP_X_AMZ_TARGET")
    if target:
        return not target.startswith(STEP_FUNCTIONS_TARGET_PREFIX)
    _, service = credential_scope(environ)
    return service is not None and service != STEP_FUNCTIONS_SIGNING_NAME


def credential_scope(environ: dict[str, Any]) -> tuple[str | None, str | None]:
    """(access key id, signing service) of a SigV4-signed request or presigned URL; (None, None) if unsigned."""
    match = _CREDENTIAL_SCOPE.search(environ.get("HTTP_AUTHORIZATION") or "")
    if match:
        return match.group(1), match.group(2)
    credential = parse_qs(environ.get("QUERY_STRING") or "").get("X-Amz-Credential")
    if credential:
        match = _PRESIGNED_CREDENTIAL.match(credential[0])
        if match:
            return match.group(1), match.group(2)
    return None, None
