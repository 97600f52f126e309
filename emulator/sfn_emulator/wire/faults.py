"""No request gets a server's HTML page: whatever a route or moto leaves unanswered is answered in
AWS's JSON error shape (`{"__type", "message"}`), with the code AWS's framework gives the request.

The app's routes, the emulator's `/_emulator/*` APIs and moto's services all sit behind this one
middleware (and the Step Functions endpoint judges its own failures with `error_for`), so a failure
in any of them is judged by the same rule, by what the request got wrong rather than where it failed:
- a body that is not UTF-8, or nested deeper than it can be read (Python's parser stops where
  Jackson's 1,000 levels would; a request without a body has no such excuse): Coral's
  `SerializationException`, 400;
- a target naming no operation of the service its signature names (by that service's botocore
  model): Coral's `UnknownOperationException`, 400, no message; an operation moto does not
  implement is one this endpoint does not serve: the same, with a message saying so;
- a signature scoped to a region the service does not have: Coral's `InvalidSignatureException`,
  400 ("Credential should be scoped to a valid region. ");
- anything else is a fault of the emulator: `InternalFailure`, 500, its traceback in the log.
The server carries on after each.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from http import HTTPStatus
from typing import Any, Callable, Iterable

from sfn_emulator.protocol.errors import ApiError
from sfn_emulator.service.errors import (
    InternalFailure,
    InvalidSignatureException,
    SerializationException,
    UnknownOperationException,
)
from sfn_emulator.wire.encoding import CONTENT_TYPE, encode_error
from sfn_emulator.wire.sigv4 import credential_scope

logger = logging.getLogger(__name__)

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def _causes(fault: BaseException) -> Iterator[BaseException]:
    """The fault and the exceptions it was raised from or while handling."""
    seen: set[int] = set()
    current: BaseException | None = fault
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def error_for(fault: Exception, environ: dict[str, Any]) -> ApiError:
    """The error AWS's framework answers to the request that raised `fault` (see the module docstring)."""
    causes = list(_causes(fault))
    if _has_body(environ) and any(isinstance(cause, (RecursionError, UnicodeDecodeError)) for cause in causes):
        return SerializationException("The request body is not JSON the service can read (not UTF-8, or nested "
                                      "too deeply)")
    scope = credential_scope(environ)
    if scope is not None and _names_no_operation_of(scope.service, str(environ.get("HTTP_X_AMZ_TARGET") or "")):
        return UnknownOperationException("")
    if any(isinstance(cause, NotImplementedError) for cause in causes):  # an operation of AWS's moto lacks
        return UnknownOperationException(f"This endpoint does not serve the operation: moto, which answers it, "
                                         f"does not implement it ({fault})")
    if scope is not None and any(isinstance(cause, KeyError) and cause.args == (scope.region,) for cause in causes):
        return InvalidSignatureException("Credential should be scoped to a valid region. ")
    logger.error("internal failure on %s %s", environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"), exc_info=fault)
    return InternalFailure(f"{type(fault).__name__}: {fault} (traceback in the emulator's log)")


def _has_body(environ: dict[str, Any]) -> bool:
    return bool(environ.get("wsgi.input_terminated")) or str(environ.get("CONTENT_LENGTH") or "0").strip() not in ("", "0")


def _names_no_operation_of(signing_name: str, target: str) -> bool:
    """Whether an `X-Amz-Target` names no operation of the service its signature is scoped to, by that
    service's botocore model (a JSON service needs one; a service botocore does not name by its signing
    name is not judged)."""
    from botocore.exceptions import UnknownServiceError

    from sfn_emulator.resources.aws.sdk import SdkServices

    try:
        model = SdkServices().model(signing_name)
    except UnknownServiceError:
        return False
    own_prefix = model.metadata.get("targetPrefix")
    if not target:
        return own_prefix is not None
    prefix, _, operation = target.partition(".")
    return (own_prefix is not None and prefix != own_prefix) or operation not in model.operation_names


class JsonFaults:
    """WSGI middleware answering an exception that escaped `app` as `error_for` judges it."""

    def __init__(self, app: WSGIApp, request_id: Callable[[], str]) -> None:
        self.app = app
        self.request_id = request_id

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        try:
            return self.app(environ, start_response)
        except Exception as fault:  # the net under every route: judged, and logged when a fault
            return answer_error(error_for(fault, environ), start_response, request_id=self.request_id(),
                                exc_info=sys.exc_info())


def answer_error(error: ApiError, start_response: Callable[..., Any], *, request_id: str | None = None,
                 exc_info: Any = None) -> list[bytes]:
    """`error` answered to a WSGI server in AWS's JSON 1.0 shape."""
    body, error_type = encode_error(error)
    headers = [("Content-Type", CONTENT_TYPE), ("Content-Length", str(len(body))), ("x-amzn-ErrorType", error_type),
               *([("x-amzn-RequestId", request_id)] if request_id else [])]
    start_response(f"{error.status} {HTTPStatus(error.status).phrase}", headers, *([exc_info] if exc_info else []))
    return [body]


def answer_faults_in_json(app: Any, request_id: Callable[[], str]) -> None:
    """Put `JsonFaults` around everything `app` (a Flask app, with its mounted middleware) serves:
    Flask hands exceptions on instead of answering its HTML 500."""
    app.config["PROPAGATE_EXCEPTIONS"] = True
    app.wsgi_app = JsonFaults(app.wsgi_app, request_id)
