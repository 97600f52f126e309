"""`arn:aws:states:::apigateway:invoke`: a REST API of moto's API Gateway, called as Step Functions calls it.

The request (docs, "Call API Gateway with Step Functions"): `ApiEndpoint`
(`<api id>.execute-api.<region>.amazonaws.com`) and `Method` (GET, POST, PUT, DELETE, PATCH, HEAD,
OPTIONS) are required; `Stage`, `Path`, `QueryParameters` and `Headers` (each key with a list of
values), `RequestBody` (JSON or text) and `AuthType` (NO_AUTH, IAM_ROLE, RESOURCE_POLICY) are optional;
headers prefixed `X-Forwarded`, `X-Amz` or `X-Amzn`, and a few others, may not be set. The answer:
`ResponseBody` (JSON when the body is JSON, else its text), `Headers` (lists of values), `StatusCode`
and `StatusText`; a status outside 2XX fails the task with `ApiGateway.<status>` and the body as Cause.

The API, its stages, resources (`{name}` and `{name+}` path parts match as API Gateway matches them),
methods (or `ANY`) and integrations are moto's, created with the API Gateway API. A request that
matches no stage, resource or method answers what API Gateway answers an undefined resource: 403
`{"message":"Missing Authentication Token"}`. Integrations run as API Gateway runs them: `HTTP_PROXY`
forwards the request and answers the backend's response; `HTTP` sends the body through to the
integration's URI, and `MOCK` answers the status its request template names; both then answer through
the integration response whose selection pattern matches the status (or the default one), with its
response template as the body. Templates are taken literally: one that uses the template language
(`$`, `#`), and any other integration type (Lambda, AWS services), fails the task with a
`States.Runtime` error saying the emulator cannot run it.
"""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request
from email.utils import format_datetime
from http import HTTPStatus
from typing import Any

from sfn_emulator.asl.errors import RUNTIME, StatesError
from sfn_emulator.asl.task_targets import ResourceArn
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.bounded_reads import ReadLimitExceeded, http_exchange

SERVICE, ACTION = "apigateway", "invoke"
METHODS = frozenset({"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"})
AUTH_TYPES = frozenset({"NO_AUTH", "IAM_ROLE", "RESOURCE_POLICY"})
_ENDPOINT = re.compile(r"(?P<api>[0-9a-z]+)\.execute-api\.(?P<region>[a-z0-9-]+)\.amazonaws\.com(?:\.cn)?")
_FORBIDDEN_HEADERS = frozenset({"authorization", "connection", "content-md5", "expect", "host", "max-forwards",
                                "proxy-authenticate", "server", "te", "transfer-encoding", "trailer", "upgrade",
                                "via", "www-authenticate"})
_FORBIDDEN_PREFIXES = ("x-forwarded", "x-amz")  # X-Amz covers X-Amzn
_NOT_FOUND = (403, '{"message":"Missing Authentication Token"}')
_TEMPLATE_LANGUAGE = re.compile(r"[$#]")
_JSON_TYPE = "application/json"
_BACKEND_TIMEOUT_SECONDS = 29.0  # API Gateway's integration timeout, for the whole exchange
_BACKEND_LIMIT_BYTES = 10 * 1024 * 1024  # API Gateway's payload quota (10 MB)


class ApiGatewayInvoke:
    """The task resource for `apigateway:invoke` (and `.waitForTaskToken`, which only makes the call)."""

    def serves(self, resource: ResourceArn) -> bool:
        return resource.is_action(SERVICE, ACTION)

    def answer(self, request: TaskRequest) -> dict[str, Any]:
        params = request.payload if isinstance(request.payload, dict) else {}
        api_id, region, method = _checked(params)
        status, headers, body = _call(api_id, region, method, params, request.account)
        if not 200 <= status < 300:
            raise StatesError(f"ApiGateway.{status}", body)
        return {"Headers": _gateway_headers(headers, body, request), "ResponseBody": _body_value(body),
                "StatusCode": status, "StatusText": _status_text(status)}


def _checked(params: dict[str, Any]) -> tuple[str, str, str]:
    """The API, region and method the request names, once its parameters hold what AWS accepts."""
    endpoint, method = params.get("ApiEndpoint"), params.get("Method")
    found = _ENDPOINT.fullmatch(endpoint) if isinstance(endpoint, str) else None
    if found is None:
        _refuse(f"The ApiEndpoint field must be '<API ID>.execute-api.<region>.amazonaws.com', not {endpoint!r}")
    if not isinstance(method, str) or method not in METHODS:
        _refuse(f"The Method field must be one of {', '.join(sorted(METHODS))}, not {method!r}")
    auth = params.get("AuthType", "NO_AUTH")
    if not isinstance(auth, str) or auth not in AUTH_TYPES:
        _refuse(f"The AuthType field must be one of {', '.join(sorted(AUTH_TYPES))}, not {auth!r}")
    for field in ("Stage", "Path"):
        if params.get(field) is not None and not isinstance(params[field], str):
            _refuse(f"The {field} field must be a string, not {params[field]!r}")
    for field in ("Headers", "QueryParameters"):
        values = params.get(field)
        if values is not None and not (isinstance(values, dict) and all(
                isinstance(value, list) and all(isinstance(item, str) for item in value) for value in values.values())):
            _refuse(f"The {field} field must be an object whose values are lists of strings")
    unsupported = sorted(name.lower() for name in params.get("Headers") or {}
                         if name.lower() in _FORBIDDEN_HEADERS or name.lower().startswith(_FORBIDDEN_PREFIXES))
    if unsupported:
        _refuse(f"The 'Headers' field contains unsupported values: [{', '.join(unsupported)}]")
    assert found is not None and isinstance(method, str)
    return found["api"], found["region"], method


def _refuse(message: str) -> None:
    raise StatesError(RUNTIME, message)


def _call(api_id: str, region: str, method: str, params: dict[str, Any], account: str) -> tuple[int, dict[str, list[str]], str]:
    from moto.apigateway.exceptions import RestAPINotFound
    from moto.apigateway.models import apigateway_backends

    try:
        api = apigateway_backends[account][region].get_rest_api(api_id)
    except RestAPINotFound:
        raise StatesError(RUNTIME, f"sfn-emulator found no REST API {api_id} of account {account} in {region} "
                                   "in moto's API Gateway (create it with the API Gateway API)") from None
    path = "/" + str(params.get("Path") or "").strip("/")
    stage = params.get("Stage")
    matched = _route(api, path) if stage in api.stages else None
    integration = None
    if matched is not None:
        methods = matched[0].resource_methods
        chosen = methods.get(method) or methods.get("ANY")
        integration = chosen.method_integration if chosen is not None else None
    if matched is None or integration is None:
        status, body = _NOT_FOUND
        return status, {"Content-Type": [_JSON_TYPE]}, body
    kind = integration.integration_type
    if kind == "HTTP_PROXY":
        return _forward(_backend_url(integration.uri, matched[1], params), method, params)
    if kind == "HTTP":
        status, _, body = _forward(_backend_url(integration.uri, matched[1], {}), integration.http_method or method,
                                   {"RequestBody": params.get("RequestBody")})
        return _through_integration_response(integration, status, body)
    if kind == "MOCK":
        return _through_integration_response(integration, _mock_status(integration), "")
    raise StatesError(RUNTIME, f"sfn-emulator cannot run API Gateway integrations of type {kind} (moto's API "
                               "Gateway does not run them); use HTTP, HTTP_PROXY or MOCK")


def _route(api: Any, path: str) -> tuple[Any, dict[str, str]] | None:
    """The resource `path` reaches and its path parameters: literal parts first, then `{name}`, then
    a greedy `{name+}`, as API Gateway prefers the most specific match."""
    wanted = [part for part in path.split("/") if part]
    best: tuple[tuple[int, ...], Any, dict[str, str]] | None = None
    for resource in api.resources.values():
        template = [part for part in resource.get_path().split("/") if part]
        bound = _bind(template, wanted)
        if bound is None:
            continue
        rank = tuple(0 if not part.startswith("{") else 2 if part.endswith("+}") else 1 for part in template)
        if best is None or rank < best[0]:
            best = (rank, resource, bound)
    return (best[1], best[2]) if best is not None else None


def _bind(template: list[str], parts: list[str]) -> dict[str, str] | None:
    bound: dict[str, str] = {}
    for index, part in enumerate(template):
        if part.startswith("{") and part.endswith("+}"):
            if index >= len(parts):
                return None
            bound[part[1:-2]] = "/".join(parts[index:])
            return bound
        if index >= len(parts):
            return None
        if part.startswith("{") and part.endswith("}"):
            bound[part[1:-1]] = parts[index]
        elif part != parts[index]:
            return None
    return bound if len(template) == len(parts) else None


def _backend_url(uri: str, path_parameters: dict[str, str], params: dict[str, Any]) -> str:
    for name, value in path_parameters.items():
        uri = uri.replace(f"{{{name}+}}", value).replace(f"{{{name}}}", urllib.parse.quote(value))
    query = [(name, value) for name, values in (params.get("QueryParameters") or {}).items() for value in values]
    if query:
        uri += ("&" if "?" in uri else "?") + urllib.parse.urlencode(query)
    return uri


def _forward(url: str, method: str, params: dict[str, Any]) -> tuple[int, dict[str, list[str]], str]:
    """Send the request to an integration's backend and return its answer, whatever its status."""
    body = params.get("RequestBody")
    data = None if body is None else (body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))).encode()
    headers = {name: ",".join(values) for name, values in (params.get("Headers") or {}).items()}
    if data is not None and not any(name.lower() == "content-type" for name in headers):
        headers["Content-Type"] = _JSON_TYPE
    call = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:  # a redirect is the backend's answer, passed on as API Gateway does
        answer = http_exchange(call, limit_bytes=_BACKEND_LIMIT_BYTES, deadline_seconds=_BACKEND_TIMEOUT_SECONDS)
        return answer.status, _header_lists(answer.headers), answer.body.decode("utf-8", "replace")
    except (OSError, ReadLimitExceeded):
        # No (usable) answer from the backend: API Gateway answers 502 in its own words.
        return 502, {"Content-Type": [_JSON_TYPE]}, '{"message": "Internal server error"}'


def _header_lists(items: Any) -> dict[str, list[str]]:
    headers: dict[str, list[str]] = {}
    for name, value in items:
        headers.setdefault(name, []).append(value)
    return headers


def _mock_status(integration: Any) -> int:
    """The status a MOCK integration's request template names (`{"statusCode": 200}`), 200 without one."""
    template = (integration.request_templates or {}).get(_JSON_TYPE)
    if not template:
        return 200
    _literal(template)
    try:
        return int(json.loads(template).get("statusCode", 200))
    except (ValueError, AttributeError, TypeError):
        raise StatesError(RUNTIME, f"sfn-emulator cannot read the MOCK request template {template!r}") from None


def _through_integration_response(integration: Any, status: int, body: str) -> tuple[int, dict[str, list[str]], str]:
    """The method's answer: the integration response whose selection pattern matches `status`, else the
    default one (no pattern), with its template as the body; without one, the backend's status and body."""
    responses = list((integration.integration_responses or {}).values())
    chosen = next((response for response in responses if response.selection_pattern
                   and re.fullmatch(response.selection_pattern, str(status))), None)
    chosen = chosen or next((response for response in responses if not response.selection_pattern), None)
    if chosen is None:
        return status, {"Content-Type": [_JSON_TYPE]}, body
    template = (chosen.response_templates or {}).get(_JSON_TYPE)
    if template:
        _literal(template)
        body = template
    return int(chosen.status_code), {"Content-Type": [_JSON_TYPE]}, body


def _literal(template: str) -> None:
    if _TEMPLATE_LANGUAGE.search(template):
        raise StatesError(RUNTIME, f"sfn-emulator cannot evaluate API Gateway mapping templates: {template!r}")


def _gateway_headers(headers: dict[str, list[str]], body: str, request: TaskRequest) -> dict[str, list[str]]:
    """The response's headers with those API Gateway adds to every answer."""
    ids = request.randomness()
    added = {
        "Connection": ["keep-alive"],
        "Content-Length": [str(len(body.encode()))],
        "Date": [format_datetime(request.now, usegmt=True)] if request.now else [],
        "x-amz-apigw-id": [ids.hex_token(16)],
        "x-amzn-RequestId": [ids.uuid()],
        "X-Amzn-Trace-Id": [f"Root=1-{ids.hex_token(8)}-{ids.hex_token(24)}"],
    }
    merged = {name: values for name, values in headers.items() if name.lower() not in {"content-length", "date"}}
    merged.setdefault("Content-Type", [_JSON_TYPE])
    return {**merged, **{name: values for name, values in added.items() if values}}


def _body_value(body: str) -> Any:
    """The body as JSON when it is JSON text, else the text itself."""
    try:
        return json.loads(body)
    except ValueError:
        return body


def _status_text(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
