"""The HTTP Task, `arn:aws:states:::http:invoke`: a real HTTP request built as the AWS developer guide
("Call HTTPS APIs in Step Functions workflows") describes it.

The request: `Method` to `ApiEndpoint` with `QueryParameters` added to its query string, `Headers`, and
`RequestBody` (a string is sent as it is, any other value as JSON, `Content-Type: application/json`
unless a header says otherwise). `Transform.RequestBodyEncoding: URL_ENCODED` sends an object body as
`application/x-www-form-urlencoded` instead: nested objects as `key[member]=value`, arrays as
`RequestEncodingOptions.ArrayFormat` says: INDICES (the default) `key[0]=a&key[1]=b`, REPEAT
`key=a&key=b`, COMMAS `key=a,b`, BRACKETS `key[]=a&key[]=b`; query parameters are encoded by the same
rule. The EventBridge connection of `Authentication.ConnectionArn` (or `InvocationConfig.ConnectionArn`)
adds its authorization header and its invocation parameters, which win over the task's on the same key
(`sfn_emulator.resources.http_connections`). Step Functions adds `User-Agent:
Amazon|StepFunctions|HttpInvoke|<region>` and `Range: bytes=0-262144`.

The result: `{"Headers": {name: [values]}, "ResponseBody": ..., "StatusCode": n, "StatusText": reason}`,
the body parsed when its Content-Type is JSON, its text otherwise. A status outside 2xx fails the task
with `States.Http.StatusCode.<n>` and that result as the Cause; no complete answer within 60 seconds
for the whole request (AWS's hard limit), or no connection at all, fails it with `States.Http.Socket`;
a body over the payload quota (256 KiB) with `States.DataLimitExceeded`, read no further
(`sfn_emulator.resources.bounded_reads`). Redirects to http(s) URLs are followed; one to another
origin sends the task's request without anything of the connection (its authorization, its
parameters), and one to another scheme is not followed: the task fails with its status.
"""

from __future__ import annotations

import json
import urllib.parse
from typing import TYPE_CHECKING, Any

from msgspec import structs

from sfn_emulator.asl.errors import RUNTIME, StatesError
from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.limits import PAYLOAD_LIMIT_BYTES, data_limit_exceeded
from sfn_emulator.asl.task_targets import REQUEST_RESPONSE, WAIT_FOR_TASK_TOKEN
from sfn_emulator.resources.bounded_reads import HttpAnswer, ReadLimitExceeded, http_exchange
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.http_connections import ConnectionParameters, connection_parameters
from sfn_emulator.resources.http_trace import HttpExchange
from sfn_emulator.resources.outcomes import BoundCall, TaskOutcome, bound_call

if TYPE_CHECKING:
    import urllib.request

_PATTERNS = frozenset({REQUEST_RESPONSE, WAIT_FOR_TASK_TOKEN})
_METHODS = frozenset({"GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"})
_ARRAY_FORMATS = frozenset({"INDICES", "REPEAT", "COMMAS", "BRACKETS"})
DEADLINE_SECONDS = 60.0  # for the whole request: past it the task fails with States.Http.Socket
_RESPONSE_RANGE = f"bytes=0-{PAYLOAD_LIMIT_BYTES}"  # the payload quota: more of the body is not asked for
_SOCKET_ERROR = "States.Http.Socket"


class HttpTask:
    """The task resource for `arn:aws:states:::http:invoke`."""

    def bind(self, request: TaskRequest) -> BoundCall | None:
        if not request.resource.is_action("http", "invoke") or request.resource.pattern not in _PATTERNS:
            return None
        return BoundCall(lambda: _call(request))


def _call(request: TaskRequest) -> TaskOutcome:
    """The HTTP exchange for `request`, typed, with the exchange itself (what TestState shows at TRACE)."""
    payload = request.payload if isinstance(request.payload, dict) else {}
    exchanges: list[HttpExchange] = []
    outcome = bound_call(request, lambda: _exchange(payload, request, exchanges)).invoke()
    return structs.replace(outcome, http=exchanges[0]) if exchanges else outcome


def _exchange(payload: dict[str, Any], request: TaskRequest, made: list[HttpExchange]) -> dict[str, Any]:
    connection = (connection_parameters(_connection_arn(payload), request.account, request.region)
                  if request.with_connection else ConnectionParameters())
    http_request = build_request(payload, connection, request.region)
    without_connection = build_request(payload, ConnectionParameters(), request.region)
    exchange = HttpExchange(http_request, without_connection)
    made.append(exchange)
    try:
        answer = http_exchange(http_request, limit_bytes=PAYLOAD_LIMIT_BYTES, deadline_seconds=DEADLINE_SECONDS,
                               follow_redirects=True, foreign=without_connection)
    except ReadLimitExceeded:
        raise data_limit_exceeded("http") from None
    except OSError as fault:
        raise StatesError(_SOCKET_ERROR, f"{http_request.method} {http_request.full_url}: {fault}") from None
    result = _result(answer, exchange)
    if not 200 <= result["StatusCode"] < 300:
        raise StatesError(f"States.Http.StatusCode.{result['StatusCode']}",
                          compact_json(result))
    return result


def build_request(payload: dict[str, Any], connection: ConnectionParameters, region: str) -> urllib.request.Request:
    """The HTTP request a task's parameters and its connection make."""
    import urllib.request

    endpoint, method = payload.get("ApiEndpoint"), payload.get("Method")
    if not isinstance(endpoint, str) or urllib.parse.urlsplit(endpoint).scheme not in ("http", "https"):
        raise StatesError(RUNTIME, f"The HTTP Task's ApiEndpoint must be an http(s) URL, not {endpoint!r}")
    if not isinstance(method, str) or method.upper() not in _METHODS:
        raise StatesError(RUNTIME, f"The HTTP Task's Method must be one of {', '.join(sorted(_METHODS))}, "
                                   f"not {method!r}")
    transform = payload.get("Transform") if isinstance(payload.get("Transform"), dict) else {}
    array_format = _array_format(transform)
    query = _merged(payload.get("QueryParameters"), connection.query)
    if query:
        endpoint += ("&" if urllib.parse.urlsplit(endpoint).query else "?") + form_encode(query, array_format)
    headers = {"Content-Type": "application/json"} if "RequestBody" in payload or connection.body else {}
    body: bytes | None = None
    if "RequestBody" in payload or connection.body:
        body_value = payload.get("RequestBody")
        if connection.body and (body_value is None or isinstance(body_value, dict)):
            body_value = {**(body_value or {}), **connection.body}
        if transform.get("RequestBodyEncoding") == "URL_ENCODED" and isinstance(body_value, dict):
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = form_encode(body_value, array_format).encode()
        elif isinstance(body_value, str):
            body = body_value.encode()
        else:
            body = compact_json(body_value).encode()
    task_headers = payload.get("Headers") if isinstance(payload.get("Headers"), dict) else {}
    for name, value in {**_texts(task_headers), **connection.headers}.items():
        _set_header(headers, name, value)
    headers["User-Agent"] = f"Amazon|StepFunctions|HttpInvoke|{region}"
    headers["Range"] = _RESPONSE_RANGE
    return urllib.request.Request(endpoint, data=body, headers=headers, method=method.upper())


def form_encode(value: dict[str, Any], array_format: str = "INDICES") -> str:
    """An object as `application/x-www-form-urlencoded` text, arrays written as `array_format` says."""
    pairs: list[tuple[str, str]] = []

    def add(key: str, item: Any) -> None:
        if isinstance(item, dict):
            for member, inner in item.items():
                add(f"{key}[{member}]", inner)
        elif isinstance(item, list):
            if array_format == "COMMAS":
                pairs.append((key, ",".join(_scalar(element) for element in item)))
            for index, element in enumerate(item if array_format != "COMMAS" else ()):
                suffix = {"INDICES": f"[{index}]", "BRACKETS": "[]"}.get(array_format, "")
                add(key + suffix, element)
        else:
            pairs.append((key, _scalar(item)))

    for key, item in value.items():
        add(str(key), item)
    return urllib.parse.urlencode(pairs)


def _array_format(transform: dict[str, Any]) -> str:
    options = transform.get("RequestEncodingOptions")
    chosen = options.get("ArrayFormat", "INDICES") if isinstance(options, dict) else "INDICES"
    if chosen not in _ARRAY_FORMATS:
        raise StatesError(RUNTIME, f"ArrayFormat must be one of {', '.join(sorted(_ARRAY_FORMATS))}, not {chosen!r}")
    return str(chosen)


def _merged(task_value: Any, connection_value: dict[str, str]) -> dict[str, Any]:
    """The task's parameters with the connection's over them (the connection wins on the same key)."""
    return {**(task_value if isinstance(task_value, dict) else {}), **connection_value}


def _texts(headers: dict[str, Any]) -> dict[str, str]:
    return {str(name): value if isinstance(value, str) else _scalar(value) for name, value in headers.items()}


def _set_header(headers: dict[str, str], name: str, value: str) -> None:
    """Set a header, replacing one of the same name in any case (header names are case-insensitive)."""
    for existing in [key for key in headers if key.lower() == name.lower()]:
        del headers[existing]
    headers[name] = value


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return compact_json(value)


def _connection_arn(payload: dict[str, Any]) -> Any:
    for member in ("Authentication", "InvocationConfig"):
        holder = payload.get(member)
        if isinstance(holder, dict) and holder.get("ConnectionArn"):
            return holder["ConnectionArn"]
    raise StatesError(RUNTIME, "The HTTP Task needs an EventBridge connection: Authentication.ConnectionArn")


def _result(answer: HttpAnswer, exchange: HttpExchange) -> dict[str, Any]:
    text = answer.body.decode("utf-8", errors="replace")
    exchange.answered(answer.status, answer.reason, answer.headers, text)
    body: Any = text
    content_type = (answer.header("Content-Type") or "").split(";")[0].strip().lower()
    if content_type == "application/json" or content_type.endswith("+json"):
        try:
            body = json.loads(text)
        except ValueError:
            pass
    grouped: dict[str, list[str]] = {}
    for name, value in answer.headers:
        grouped.setdefault(name.lower(), []).append(value)
    return {"Headers": grouped, "ResponseBody": body, "StatusCode": answer.status, "StatusText": answer.reason}
