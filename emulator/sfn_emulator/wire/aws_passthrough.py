"""Other AWS services on the emulator's own endpoint, LocalStack-style: moto's server, in-process.

A boto3 client for SQS, SNS, DynamoDB, S3, EventBridge, Secrets Manager... pointed at the emulator's
URL reaches moto's in-memory backends, the same ones Task states use (`sfn_emulator.resources.aws`), so
a test can create a queue over HTTP, run a workflow that sends to it, and read the message back.

Which requests go to moto is decided by what every SDK sends, so that only requests meant for
another service reach it and moto's own Step Functions never does:
1. moto's own `/moto-api/` (e.g. `POST /moto-api/reset`) goes to moto;
2. an `X-Amz-Target` whose prefix names an API this app serves (`AWSStepFunctions.`) stays here;
3. a request whose SigV4 credential scope (the `Authorization` header or, for presigned URLs, the
   `X-Amz-Credential` query parameter) names another service (`sqs`, `s3` for path-style bucket
   requests, ...) goes to moto, which routes it by that scope as AWS routes by host;
4. everything else stays here: health checks, unsigned requests, and requests signed for Step
   Functions whatever their target, which get the JSON 1.0 error AWS gives (a typo such as
   `AWSStepFunction.ListStateMachines` is UnknownOperationException). An unsigned request with
   another service's target stays here too: moto cannot tell an unsigned request's service from its
   target (it would answer an S3 ListBuckets), and no SDK sends one.

moto's server sets CORS headers reflecting any `Origin` (flask-cors); this endpoint is local-only
and sends none, so they are removed from moto's answers. A request moto has no route for gets
Werkzeug's HTML page from it; it is answered as Coral answers it instead (`UnknownOperationException`
in JSON, with moto's status), and what moto raises is judged by `sfn_emulator.wire.faults`.

As in the Step Functions API, a twelve-digit access key id names the caller's account; any other
key acts in the emulator's default account.

Mounting is one call on the Flask app:  `mount_aws_passthrough(app, default_account=...)`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from sfn_emulator.resources.aws import MOTO_ACCOUNT_HEADER, moto_state
from sfn_emulator.service.errors import UnknownOperationException
from sfn_emulator.wire.app import OWN_APIS_KEY, STEP_FUNCTIONS_APIS, OwnApis
from sfn_emulator.wire.faults import answer_error
from sfn_emulator.wire.sigv4 import credential_scope

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

MOTO_API_PATH = "/moto-api/"
_ENVIRON_ACCOUNT_KEY = "HTTP_" + MOTO_ACCOUNT_HEADER.upper().replace("-", "_")


def make_passthrough_app(*, default_account: str) -> WSGIApp:
    """moto's multi-service server app, acting for the caller's account (see the module docstring).

    moto's server is made (and moto imported) on the first request for another service: a
    server most runs never send one to starts without it."""
    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if _ENVIRON_ACCOUNT_KEY not in environ:
            scope = credential_scope(environ)
            environ[_ENVIRON_ACCOUNT_KEY] = scope.account(default_account) if scope else default_account

        started: list[tuple[str, list[tuple[str, str]]]] = []

        def start_without_cors(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
            started[:] = [(status, [(name, value) for name, value in headers
                                    if not name.lower().startswith("access-control-")])]
            return lambda data: None  # (moto's Werkzeug apps return their body; none writes)

        entry = moto_state.http_request(environ)
        with moto_state.seeded(entry.seed):
            answer = moto_state.server_app()(environ, start_without_cors)
        status, headers = started[0] if started else ("500 INTERNAL SERVER ERROR", [])
        moto_state.served(entry, int(status.split()[0]))  # kept before the answer is sent
        if _is_html_refusal(status, headers):  # Werkzeug's page for a request no route of moto's takes
            close = getattr(answer, "close", None)
            if close is not None:
                close()
            return answer_error(UnknownOperationException("", status=int(status.split()[0])), start_response)
        start_response(status, headers)
        return answer

    return serve


class AwsPassthrough:
    """WSGI middleware: requests for the app's own APIs to `states_app`, other AWS services to `passthrough_app`."""

    def __init__(self, states_app: WSGIApp, passthrough_app: WSGIApp, own: OwnApis = STEP_FUNCTIONS_APIS) -> None:
        self.states_app = states_app
        self.passthrough_app = passthrough_app
        self.own = own

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        app = self.passthrough_app if is_other_aws_service(environ, self.own) else self.states_app
        return app(environ, start_response)


def mount_aws_passthrough(app: Any, *, default_account: str) -> None:
    """Serve other AWS services on `app` (a Flask app) besides the APIs it serves itself."""
    own = app.extensions.get(OWN_APIS_KEY, STEP_FUNCTIONS_APIS)
    app.wsgi_app = AwsPassthrough(app.wsgi_app, make_passthrough_app(default_account=default_account), own)


def is_other_aws_service(environ: dict[str, Any], own: OwnApis = STEP_FUNCTIONS_APIS) -> bool:
    """Whether a request is for an AWS service other than the APIs in `own`, or for moto's own API."""
    if str(environ.get("PATH_INFO", "")).startswith(MOTO_API_PATH):
        return True
    target = environ.get("HTTP_X_AMZ_TARGET") or ""
    if target.partition(".")[0] in own.target_prefixes:
        return False
    scope = credential_scope(environ)
    return scope is not None and scope.service not in own.signing_names


def _is_html_refusal(status: str, headers: list[tuple[str, str]]) -> bool:
    content_type = next((value for name, value in headers if name.lower() == "content-type"), "")
    return status[:1] == "4" and content_type.lower().startswith("text/html")

