"""The HTTP face of the emulator: AWS JSON 1.0 APIs on one Flask route.

`POST /` carries every operation, named by `X-Amz-Target: <TargetPrefix>.<Operation>`; the target
prefix picks the API from a small table (Step Functions' `AWSStepFunctions`, Amazon SWF's
`SimpleWorkflowService`; each API's
prefix and SigV4 signing name come from its botocore model). A request is parsed, checked against
the model, handed to that API's control plane with the caller's account and region, and the
result or `ApiError` is encoded as AWS would.

What Coral, AWS's service framework, answers to a request it cannot place, and so do we: a target
naming no operation of an API served here (missing, another prefix, a typo such as
`AWSStepFunction.ListStateMachines`) is a 400 `UnknownOperationException` with no message; a body
that is not a JSON object is a 400 `SerializationException` with no message; a request whose target
is ours but whose SigV4 scope names another service is a 400 `InvalidSignatureException`
("Credential should be scoped to correct service: 'states'. "). The Content-Type is not what
decides: the body is read as JSON whatever type it declares (AWS's answer to a wrong type is not on
record). Any other method or path is an `UnknownOperationException` with the HTTP status the
routing gives it (404, 405). Anything else that fails is judged by `sfn_emulator.wire.faults`, as
every route's failures are (a bug: a 500 `InternalFailure`, its traceback in the log); the server
carries on.

The endpoint answers plain WSGI too (`JsonProtocolEndpoint.wsgi`), so that a server can answer API
requests before Flask is imported (`sfn_emulator.wire.front`); Flask loads with `create_app`.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Callable, Protocol

from msgspec import Struct

import sfn_emulator
from sfn_emulator.service.api_model import SERVICE_NAME, service_model
from sfn_emulator.service.errors import (
    ApiError,
    InvalidSignatureException,
    SerializationException,
    UnknownOperationException,
)
from sfn_emulator.process.randomness import Randomness, process_seed
from sfn_emulator.wire.encoding import CONTENT_TYPE, encode_error, encode_result
from sfn_emulator.wire.faults import error_for
from sfn_emulator.wire.sigv4 import credential_scope
from sfn_emulator.protocol.validation import RequestDecoder, compile_request_decoders

if TYPE_CHECKING:
    from flask import Flask


logger = logging.getLogger(__name__)

HEALTH_PATH = "/_emulator/health"
OWN_APIS_KEY = "sfn_emulator.own_apis"  # in `app.extensions`: the `OwnApis` of the app


class OperationHandler(Protocol):
    """What the wire needs from the service: one entry point, named by botocore operation."""

    def handle(self, operation: str, params: dict[str, Any], *, account: str, region: str) -> dict[str, Any]: ...


class ApiExtension(OperationHandler, Protocol):
    """A second AWS JSON API served on the same endpoint as Step Functions (Amazon SWF is one): an
    extension the composition root registers under its botocore model name (`more_apis`), whose
    model gives the target prefix and signing name requests are routed by. Besides answering its
    operations, it forgets an account's resources with the emulator (`POST /_emulator/reset`) and
    stops its waits (long polls) when the emulator closes."""

    def reset(self, account: str | None = None) -> None: ...

    def close(self) -> None: ...


class OwnApis(Struct, frozen=True):
    """How requests name the APIs an app answers itself: X-Amz-Target prefixes and SigV4 signing names."""

    target_prefixes: frozenset[str]
    signing_names: frozenset[str]


STEP_FUNCTIONS_APIS = OwnApis(frozenset({"AWSStepFunctions"}), frozenset({"states"}))  # `create_app`'s


class JsonApi(Struct, frozen=True):
    """One AWS JSON API served on the endpoint: how requests name it, and who answers it."""

    target_prefix: str  # "AWSStepFunctions"
    signing_name: str  # "states"
    control_plane: OperationHandler
    decoders: dict[str, RequestDecoder]

    @classmethod
    def from_model(cls, model_name: str, control_plane: OperationHandler) -> JsonApi:
        model = service_model(model_name)
        return cls(model.metadata["targetPrefix"], model.signing_name, control_plane, compile_request_decoders(model))


def _reject_constant(name: str) -> Any:
    """NaN and Infinity are not JSON, though Python's parser would take them."""
    raise ValueError(f"{name} is not a JSON value")


def parse_body(raw: bytes) -> dict[str, Any]:
    """The request body as a JSON object, or the framework's SerializationException (no message)."""
    try:
        body = json.loads(raw, parse_constant=_reject_constant)
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise SerializationException("") from None
    if not isinstance(body, dict):
        raise SerializationException("")
    return body


class JsonProtocolEndpoint:
    """Dispatches `POST /` requests to the API their target prefix names."""

    def __init__(self, apis: Iterable[JsonApi], *, default_account: str, default_region: str,
                 ids: Randomness | None = None) -> None:
        self._apis = {api.target_prefix: api for api in apis}
        self._default_account = default_account
        self._default_region = default_region
        # Each answer's `x-amzn-RequestId`: from the emulator's seed, so a seeded client session repeats.
        self._ids = ids or Randomness(process_seed(None))
        self._ids_lock = threading.Lock()  # requests are answered on several threads

    def request_id(self) -> str:
        """A new `x-amzn-RequestId`."""
        with self._ids_lock:
            return self._ids.uuid()

    @property
    def own_apis(self) -> OwnApis:
        return OwnApis(frozenset(self._apis), frozenset(api.signing_name for api in self._apis.values()))

    def wsgi(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """The answer as a WSGI app (no Flask)."""
        status, headers, body = self.answer(environ)
        start_response(f"{status} {HTTPStatus(status).phrase}", [*headers.items(), ("Content-Length", str(len(body)))])
        return [body]

    def answer(self, environ: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        """Status, headers and body of the answer to a `POST /` request."""
        headers = {"Content-Type": CONTENT_TYPE, "x-amzn-RequestId": self.request_id()}
        target = environ.get("HTTP_X_AMZ_TARGET")
        try:
            answer = 200, headers, encode_result(self._dispatch(environ))
            logger.debug("%s: 200", target)
            return answer
        except ApiError as error:
            logger.debug("%s: %s %s", target, error.status, error.code)
            return _error_answer(error, headers)
        except Exception as fault:  # judged as every route's are; a bug is logged, and the server carries on
            return _error_answer(error_for(fault, environ), headers)

    def _dispatch(self, environ: dict[str, Any]) -> dict[str, Any]:
        scope = credential_scope(environ)
        prefix, _, operation = (environ.get("HTTP_X_AMZ_TARGET") or "").partition(".")
        api = self._apis.get(prefix)
        if api is not None and scope is not None and scope.service != api.signing_name:  # signatures come first
            raise InvalidSignatureException(f"Credential should be scoped to correct service: '{api.signing_name}'. ")
        body = parse_body(_request_body(environ))
        if api is None or operation not in api.decoders:
            raise UnknownOperationException("")
        params = api.decoders[operation](body)
        account = scope.account(self._default_account) if scope else self._default_account
        region = scope.region if scope else self._default_region
        return api.control_plane.handle(operation, params, account=account, region=region)


def _request_body(environ: dict[str, Any]) -> bytes:
    """The request's body, as Werkzeug reads it: `Content-Length` bytes, or all of a terminated stream."""
    stream = environ["wsgi.input"]
    if environ.get("wsgi.input_terminated"):
        return bytes(stream.read())
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    return bytes(stream.read(length)) if length > 0 else b""


def _error_answer(error: ApiError, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    body, error_type = encode_error(error)
    return error.status, {**headers, "x-amzn-ErrorType": error_type}, body


def api_endpoint(service: OperationHandler, *, default_account: str, default_region: str,
                 more_apis: Iterable[tuple[str, OperationHandler]] = (), ids: Randomness | None = None) -> JsonProtocolEndpoint:
    """`POST /` for the Step Functions API and the APIs of `more_apis` ((botocore model name, control
    plane) pairs: Amazon SWF's)."""
    apis = [JsonApi.from_model(SERVICE_NAME, service), *(JsonApi.from_model(name, plane) for name, plane in more_apis)]
    return JsonProtocolEndpoint(apis, default_account=default_account, default_region=default_region, ids=ids)


def create_app(service: OperationHandler, *, default_account: str, default_region: str,
               more_apis: Iterable[tuple[str, OperationHandler]] = (),
               endpoint: JsonProtocolEndpoint | None = None) -> Flask:
    """The WSGI app serving the Step Functions API and those of `more_apis` (on `endpoint` when given)
    and the emulator's health check.

    Its views use the Flask this call imported, never one imported when a request comes: a Flask
    imported anew later (pytester's inline runs unload what they import) keeps its request context
    apart, and a view reading it would find no request."""
    from flask import Flask, Response, request
    from werkzeug.exceptions import HTTPException

    endpoint = endpoint or api_endpoint(service, default_account=default_account, default_region=default_region,
                                        more_apis=more_apis)

    def api() -> Response:
        status, headers, body = endpoint.answer(request.environ)
        return Response(body, status=status, headers=headers)

    def health() -> Response:
        body = json.dumps({"status": "ok", "version": sfn_emulator.__version__})
        return Response(body, status=200, content_type="application/json")

    def unroutable(error: HTTPException) -> Response:
        """A method or path the API has no route for: Coral's unknown operation, with the routing's status."""
        headers = {"Content-Type": CONTENT_TYPE, "x-amzn-RequestId": endpoint.request_id()}
        status, headers, body = _error_answer(UnknownOperationException("", status=error.code or 404), headers)
        return Response(body, status=status, headers=headers)

    app = Flask(__name__)
    # No automatic OPTIONS answers: no CORS preflight is served, and every answer is JSON.
    app.add_url_rule("/", "api", api, methods=["POST"], provide_automatic_options=False)
    app.add_url_rule(HEALTH_PATH, "health", health, methods=["GET"], provide_automatic_options=False)
    app.register_error_handler(HTTPException, unroutable)
    app.extensions[OWN_APIS_KEY] = endpoint.own_apis
    return app
