"""Plain HTTP to the emulator with urllib, for requests no SDK would send."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

JSON_1_0 = "application/x-amz-json-1.0"


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def send(
    endpoint_url: str,
    body: bytes | str | None = None,
    *,
    target: str | None = None,
    headers: dict[str, str] | None = None,
    method: str = "POST",
    path: str = "/",
    sign_for: str | None = None,
    access_key: str = "testing",
    region: str = "us-east-1",
) -> RawResponse:
    """One request; HTTP errors are returned like any other answer. With `sign_for` (a signing name
    such as "states" or "sqs") it is SigV4-signed for that service, as an SDK would sign it."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    all_headers = {"Content-Type": JSON_1_0}
    if target is not None:
        all_headers["X-Amz-Target"] = target
    all_headers.update(headers or {})
    if sign_for is not None:
        signed = AWSRequest(method=method, url=endpoint_url + path, data=data, headers=all_headers)
        SigV4Auth(Credentials(access_key, "testing"), sign_for, region).add_auth(signed)
        all_headers = dict(signed.headers.items())
    request = urllib.request.Request(endpoint_url + path, data=data, headers=all_headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return RawResponse(response.status, _lower(response.headers.items()), response.read())
    except urllib.error.HTTPError as error:
        return RawResponse(error.code, _lower(error.headers.items()), error.read())


def call(endpoint_url: str, operation: str, payload: Any, **kwargs: Any) -> RawResponse:
    """POST a JSON payload to `AWSStepFunctions.<operation>`."""
    return send(endpoint_url, json.dumps(payload), target=f"AWSStepFunctions.{operation}", **kwargs)


def _lower(items: Any) -> dict[str, str]:
    return {name.lower(): value for name, value in items}
