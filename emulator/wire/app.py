"""The HTTP face of the emulator: AWS Step Functions' JSON 1.0 protocol on one Flask route.

`POST /` carries every operation, named by `X-Amz-Target: AWSStepFunctions.<Operation>`. A request
is parsed, checked against botocore's model, handed to the control plane with the caller's
account and region, and the result or `ApiError` is encoded as AWS would. Anything unexpected is
logged with its traceback and answered as a 500 `InternalFailure`; the server carries on.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from typing import Any, Protocol

from flask import Flask, Response, request

import sfn_emulator
from sfn_emulator.service.api_model import stepfunctions_model
from sfn_emulator.service.errors import ApiError, InternalFailure, SerializationException, UnknownOperationException
from sfn_emulator.wire.encoding import CONTENT_TYPE, encode_error, encode_result
from sfn_emulator.wire.validation import RequestDecoder, compile_request_decoders

logger = logging.getLogger(__name__)

HEALTH_PATH = "/_emulator/health"

# `Authorization: AWS4-HMAC-SHA256 Credential=AKID/20240101/us-west-2/states/aws4_request, ...`
_CREDENTIAL_SCOPE = re.compile(r"Credential=([^/,\s]*)/[^/,\s]*/([^/,\s]+)/")
_ACCOUNT_ID = re.compile(r"\d{12}")


class ControlPlane(Protocol):
    """What the wire needs from the service: one entry point, named by botocore operation."""

    def handle(self, operation: str, params: dict[str, Any], *, account: str, region: str) -> dict[str, Any]: ...


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


def caller_identity(authorization: str | None, default_account: str, default_region: str) -> tuple[str, str]:
    """(account, region) of the caller, from the SigV4 credential scope; signatures are not checked.

    An access key id of exactly twelve digits names the account, as in moto; otherwise the default.
    """
    if authorization:
        match = _CREDENTIAL_SCOPE.search(authorization)
        if match:
            access_key, region = match.groups()
            account = access_key if _ACCOUNT_ID.fullmatch(access_key) else default_account
            return account, region
    return default_account, default_region


class JsonProtocolEndpoint:
    """Dispatches `POST /` requests to the control plane."""

    def __init__(self, service: ControlPlane, *, default_account: str, default_region: str) -> None:
        self._service = service
        self._default_account = default_account
        self._default_region = default_region
        model = stepfunctions_model()
        self._target_prefix = model.metadata["targetPrefix"] + "."
        self._decoders: dict[str, RequestDecoder] = compile_request_decoders(model)

    def __call__(self) -> Response:
        headers = {"x-amzn-RequestId": str(uuid.uuid4())}
        try:
            body = encode_result(self._dispatch())
            return Response(body, status=200, headers=headers, content_type=CONTENT_TYPE)
        except ApiError as error:
            return self._error_response(error, headers)
        except Exception as fault:  # a bug: keep serving, and say where to look
            logger.exception("internal failure on %s", request.headers.get("X-Amz-Target"))
            failure = InternalFailure(f"{type(fault).__name__}: {fault} (traceback in the emulator's log)")
            return self._error_response(failure, headers)

    def _dispatch(self) -> dict[str, Any]:
        body = parse_body(request.get_data(cache=False))
        operation = self._operation(request.headers.get("X-Amz-Target"))
        params = self._decoders[operation](body)
        account, region = caller_identity(
            request.headers.get("Authorization"), self._default_account, self._default_region
        )
        return self._service.handle(operation, params, account=account, region=region)

    def _operation(self, target: str | None) -> str:
        if target and target.startswith(self._target_prefix):
            operation = target[len(self._target_prefix) :]
            if operation in self._decoders:
                return operation
        raise UnknownOperationException("")

    @staticmethod
    def _error_response(error: ApiError, headers: dict[str, str]) -> Response:
        body, error_type = encode_error(error)
        headers["x-amzn-ErrorType"] = error_type
        return Response(body, status=error.status, headers=headers, content_type=CONTENT_TYPE)


def health() -> Response:
    body = json.dumps({"status": "ok", "version": sfn_emulator.__version__})
    return Response(body, status=200, content_type="application/json")


def create_app(service: ControlPlane, *, default_account: str, default_region: str) -> Flask:
    """The WSGI app serving the Step Functions API and the emulator's health check."""
    app = Flask(__name__)
    endpoint = JsonProtocolEndpoint(service, default_account=default_account, default_region=default_region)
    app.add_url_rule("/", "api", endpoint, methods=["POST"])
    app.add_url_rule(HEALTH_PATH, "health", health, methods=["GET"])
    return app
