"""Plain HTTP to the emulator with urllib, for requests no SDK would send."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

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
) -> RawResponse:
    """One request; HTTP errors are returned like any other answer."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    all_headers = {"Content-Type": JSON_1_0}
    if target is not None:
        all_headers["X-Amz-Target"] = target
    all_headers.update(headers or {})
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
