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
routing gives it (404, 405). Anything unexpected is logged with its traceback and answered as a 500
`InternalFailure`; the server carries on.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

import sfn_emulator
from sfn_emulator.service.api_model import SERVICE_NAME, service_model
from sfn_emulator.service.errors import (
    ApiError,
    InternalFailure,
    InvalidSignatureException,
    SerializationException,
    UnknownOperationException,
)
from sfn_emulator.wire.encoding import CONTENT_TYPE, encode_error, encode_result
from sfn_emulator.wire.sigv4 import credential_scope
from sfn_emulator.protocol.validation import RequestDecoder, compile_request_decoders

logger = logging.getLogger(__name__)

HEALTH_PATH = "/_emulator/health"
OWN_APIS_KEY = "sfn_emulator.own_apis"  # in `app.extensions`: the `OwnApis` of the app


class ControlPlane(Protocol):
    """What the wire needs from the service: one entry point, named by botocore operation."""

    def handle(self, operation: str, params: dict[str, Any], *, account: str, region: str) -> dict[str, Any]: ...


@dataclass(frozen=True)
class OwnApis:
    """How requests name the APIs an app answers itself: X-Amz-Target prefixes and SigV4 signing names."""

    target_prefixes: frozenset[str]
    signing_names: frozenset[str]


STEP_FUNCTIONS_APIS = OwnApis(frozenset({"AWSStepFunctions"}), frozenset({"states"}))  # `create_app`'s


@dataclass(frozen=True)
class JsonApi:
    """One AWS JSON API served on the endpoint: how requests name it, and who answers it."""

    target_prefix: str  # "AWSStepFunctions"
    signing_name: str  # "states"
    control_plane: ControlPlane
    decoders: dict[str, RequestDecoder]

    @classmethod
    def from_model(cls, model_name: str, control_plane: ControlPlane) -> JsonApi:
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

    def __init__(self, apis: Iterable[JsonApi], *, default_account: str, default_region: str) -> None:
        self._apis = {api.target_prefix: api for api in apis}
        self._default_account = default_account
        self._default_region = default_region

    @property
    def own_apis(self) -> OwnApis:
        return OwnApis(frozenset(self._apis), frozenset(api.signing_name for api in self._apis.values()))

    def __call__(self) -> Response:
        headers = {"x-amzn-RequestId": str(uuid.uuid4())}
        try:
            body = encode_result(self._dispatch())
            return Response(body, status=200, headers=headers, content_type=CONTENT_TYPE)
        except ApiError as error:
            return error_response(error, headers)
        except Exception as fault:  # a bug: keep serving, and say where to look
            logger.exception("internal failure on %s", request.headers.get("X-Amz-Target"))
            failure = InternalFailure(f"{type(fault).__name__}: {fault} (traceback in the emulator's log)")
            return error_response(failure, headers)

    def _dispatch(self) -> dict[str, Any]:
        scope = credential_scope(request.environ)
        prefix, _, operation = (request.headers.get("X-Amz-Target") or "").partition(".")
        api = self._apis.get(prefix)
        if api is not None and scope is not None and scope.service != api.signing_name:  # signatures come first
            raise InvalidSignatureException(f"Credential should be scoped to correct service: '{api.signing_name}'. ")
        body = parse_body(request.get_data(cache=False))
        if api is None or operation not in api.decoders:
            raise UnknownOperationException("")
        params = api.decoders[operation](body)
        account = scope.account(self._default_account) if scope else self._default_account
        region = scope.region if scope else self._default_region
        return api.control_plane.handle(operation, params, account=account, region=region)


def error_response(error: ApiError, headers: dict[str, str] | None = None) -> Response:
    """An error answered in AWS's JSON 1.0 form."""
    body, error_type = encode_error(error)
    all_headers = {"x-amzn-RequestId": str(uuid.uuid4()), **(headers or {}), "x-amzn-ErrorType": error_type}
    return Response(body, status=error.status, headers=all_headers, content_type=CONTENT_TYPE)


def _unroutable(error: HTTPException) -> Response:
    """A method or path the API has no route for: Coral's unknown operation, with the routing's status."""
    return error_response(UnknownOperationException("", status=error.code or 404))


def health() -> Response:
    body = json.dumps({"status": "ok", "version": sfn_emulator.__version__})
    return Response(body, status=200, content_type="application/json")


def create_app(service: ControlPlane, *, default_account: str, default_region: str,
               more_apis: Iterable[tuple[str, ControlPlane]] = ()) -> Flask:
    """The WSGI app serving the Step Functions API, the APIs of `more_apis` ((botocore model name,
    control plane) pairs: Amazon SWF's) and the emulator's health check."""
    app = Flask(__name__)
    apis = [JsonApi.from_model(SERVICE_NAME, service), *(JsonApi.from_model(name, plane) for name, plane in more_apis)]
    endpoint = JsonProtocolEndpoint(apis, default_account=default_account, default_region=default_region)
    # No automatic OPTIONS answers: no CORS preflight is served, and every answer is JSON.
    app.add_url_rule("/", "api", endpoint, methods=["POST"], provide_automatic_options=False)
    app.add_url_rule(HEALTH_PATH, "health", health, methods=["GET"], provide_automatic_options=False)
    app.register_error_handler(HTTPException, _unroutable)
    app.extensions[OWN_APIS_KEY] = endpoint.own_apis
    return app
