"""The HTTP Task (`arn:aws:states:::http:invoke`) against a real HTTP server started here, through the
emulator's own endpoint, with EventBridge connections created there (moto's events backend)."""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
import pytest
from helpers.clients import TEST_REGION
from helpers.hostile_http import HostileServer

from sfn_emulator.resources import http_task

ROLE = "arn:aws:iam::123456789012:role/sfn"


class Api:
    """A local HTTP API: records each request; `/status/NNN` answers NNN, `/token` answers an OAuth token."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                path, _, query = self.path.partition("?")
                owner.requests.append({"method": self.command, "path": path, "query": query,
                                       "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                if path == "/token":
                    self._answer(200, {"access_token": "t0k3n", "token_type": "Bearer"})
                elif path.startswith("/status/"):
                    self._answer(int(path.rsplit("/", 1)[1]), {"problem": "said so"})
                elif path == "/text":
                    self._answer(200, "plain words", content_type="text/plain")
                else:
                    self._answer(200, {"ok": True, "path": path})

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve  # noqa: N815 - http.server's names

            def _answer(self, status: int, body: Any, content_type: str = "application/json") -> None:
                data = (body if isinstance(body, str) else json.dumps(body)).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("X-Custom", "yes")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def last(self, path: str) -> dict[str, Any]:
        return [request for request in self.requests if request["path"] == path][-1]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture(scope="module")
def api() -> Iterator[Api]:
    server = Api()
    yield server
    server.close()


@pytest.fixture(scope="module")
def events(emulator_server: Any) -> Any:
    return boto3.client("events", endpoint_url=emulator_server.endpoint_url, region_name=TEST_REGION,
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def connection(events: Any, kind: str, auth: dict[str, Any]) -> str:
    return events.create_connection(Name=f"c-{uuid.uuid4().hex[:8]}", AuthorizationType=kind,
                                    AuthParameters=auth)["ConnectionArn"]


@pytest.fixture(scope="module")
def api_key(events: Any) -> str:
    return connection(events, "API_KEY", {"ApiKeyAuthParameters": {"ApiKeyName": "x-api-key", "ApiKeyValue": "s3cret"}})


def run(sfn: Any, parameters: dict[str, Any]) -> tuple[str, Any]:
    definition = {"StartAt": "Call", "States": {"Call": {
        "Type": "Task", "Resource": "arn:aws:states:::http:invoke", "Parameters": parameters, "End": True}}}
    machine = sfn.create_state_machine(name=f"h-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                       roleArn=ROLE)["stateMachineArn"]
    arn = sfn.start_execution(stateMachineArn=machine, input="{}")["executionArn"]
    deadline = time.monotonic() + 60
    while (described := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.monotonic() < deadline, "the execution did not end"
        time.sleep(0.02)  # polled with a bound
    if described["status"] == "SUCCEEDED":
        return "SUCCEEDED", json.loads(described["output"])
    return described["status"], {"error": described.get("error"), "cause": described.get("cause")}


def test_a_get_answers_the_response_shape(sfn: Any, api: Api, api_key: str) -> None:
    status, output = run(sfn, {"ApiEndpoint": f"{api.url}/orders", "Method": "GET",
                               "Authentication": {"ConnectionArn": api_key}})
    assert status == "SUCCEEDED"
    assert (output["StatusCode"], output["StatusText"], output["ResponseBody"]) == (
        200, "OK", {"ok": True, "path": "/orders"})
    assert output["Headers"]["x-custom"] == ["yes"]
    sent = api.last("/orders")["headers"]
    assert sent["x-api-key"] == "s3cret"
    assert sent["user-agent"] == f"Amazon|StepFunctions|HttpInvoke|{TEST_REGION}"
    assert sent["range"] == "bytes=0-262144"


def test_a_text_answer_is_its_text(sfn: Any, api: Api, api_key: str) -> None:
    _, output = run(sfn, {"ApiEndpoint": f"{api.url}/text", "Method": "GET",
                          "Authentication": {"ConnectionArn": api_key}})
    assert output["ResponseBody"] == "plain words"


def test_headers_query_and_json_body_are_sent(sfn: Any, api: Api, api_key: str) -> None:
    status, _ = run(sfn, {"ApiEndpoint": f"{api.url}/create?fixed=1", "Method": "POST",
                          "Authentication": {"ConnectionArn": api_key},
                          "Headers": {"X-Trace": "abc"}, "QueryParameters": {"page": 2, "q": "a b"},
                          "RequestBody": {"name": "n", "items": [1, 2]}})
    sent = api.last("/create")
    assert status == "SUCCEEDED"
    assert (sent["method"], sent["headers"]["x-trace"], sent["headers"]["content-type"]) == (
        "POST", "abc", "application/json")
    assert urllib.parse.parse_qs(sent["query"]) == {"fixed": ["1"], "page": ["2"], "q": ["a b"]}
    assert json.loads(sent["body"]) == {"name": "n", "items": [1, 2]}


@pytest.mark.parametrize(("array_format", "encoded"), [
    (None, "a[0]=1&a[1]=2&o[k]=v&s=x y"),
    ("INDICES", "a[0]=1&a[1]=2&o[k]=v&s=x y"),
    ("REPEAT", "a=1&a=2&o[k]=v&s=x y"),
    ("COMMAS", "a=1,2&o[k]=v&s=x y"),
    ("BRACKETS", "a[]=1&a[]=2&o[k]=v&s=x y"),
])
def test_url_encoded_bodies_write_arrays_as_the_array_format_says(sfn: Any, api: Api, api_key: str,
                                                                  array_format: str | None, encoded: str) -> None:
    transform: dict[str, Any] = {"RequestBodyEncoding": "URL_ENCODED"}
    if array_format:
        transform["RequestEncodingOptions"] = {"ArrayFormat": array_format}
    path = f"/form-{uuid.uuid4().hex[:6]}"
    status, _ = run(sfn, {"ApiEndpoint": api.url + path, "Method": "POST", "Transform": transform,
                          "Authentication": {"ConnectionArn": api_key},
                          "RequestBody": {"a": [1, 2], "o": {"k": "v"}, "s": "x y"}})
    sent = api.last(path)
    assert status == "SUCCEEDED"
    assert sent["headers"]["content-type"] == "application/x-www-form-urlencoded"
    assert urllib.parse.unquote_plus(sent["body"]) == encoded


def test_the_connections_invocation_parameters_win_over_the_tasks(sfn: Any, api: Api, events: Any) -> None:
    arn = connection(events, "API_KEY", {
        "ApiKeyAuthParameters": {"ApiKeyName": "x-api-key", "ApiKeyValue": "k"},
        "InvocationHttpParameters": {
            "HeaderParameters": [{"Key": "X-Tenant", "Value": "from-connection", "IsValueSecret": False}],
            "QueryStringParameters": [{"Key": "region", "Value": "eu", "IsValueSecret": False}],
            "BodyParameters": [{"Key": "source", "Value": "connection", "IsValueSecret": False}]}})
    status, _ = run(sfn, {"ApiEndpoint": f"{api.url}/merge", "Method": "POST",
                          "Authentication": {"ConnectionArn": arn}, "Headers": {"X-Tenant": "from-task"},
                          "QueryParameters": {"region": "us", "page": "1"},
                          "RequestBody": {"source": "task", "n": 1}})
    sent = api.last("/merge")
    assert status == "SUCCEEDED"
    assert sent["headers"]["x-tenant"] == "from-connection"
    assert urllib.parse.parse_qs(sent["query"]) == {"region": ["eu"], "page": ["1"]}
    assert json.loads(sent["body"]) == {"source": "connection", "n": 1}


def test_basic_and_oauth_connections_authorize_the_request(sfn: Any, api: Api, events: Any) -> None:
    basic = connection(events, "BASIC", {"BasicAuthParameters": {"Username": "u", "Password": "p"}})
    run(sfn, {"ApiEndpoint": f"{api.url}/basic", "Method": "GET", "Authentication": {"ConnectionArn": basic}})
    assert api.last("/basic")["headers"]["authorization"] == "Basic " + base64.b64encode(b"u:p").decode()

    oauth = connection(events, "OAUTH_CLIENT_CREDENTIALS", {"OAuthParameters": {
        "ClientParameters": {"ClientID": "id", "ClientSecret": "secret"},
        "AuthorizationEndpoint": f"{api.url}/token", "HttpMethod": "POST",
        "OAuthHttpParameters": {"BodyParameters": [{"Key": "scope", "Value": "orders", "IsValueSecret": False}]}}})
    status, _ = run(sfn, {"ApiEndpoint": f"{api.url}/oauth", "Method": "GET",
                          "Authentication": {"ConnectionArn": oauth}})
    assert status == "SUCCEEDED"
    assert api.last("/oauth")["headers"]["authorization"] == "Bearer t0k3n"
    token_request = api.last("/token")
    assert urllib.parse.parse_qs(token_request["body"]) == {"grant_type": ["client_credentials"], "scope": ["orders"]}
    assert token_request["headers"]["authorization"] == "Basic " + base64.b64encode(b"id:secret").decode()


@pytest.mark.parametrize("code", [400, 404, 429, 500, 503])
def test_a_status_outside_2xx_fails_as_states_http_status_code(sfn: Any, api: Api, api_key: str, code: int) -> None:
    status, failure = run(sfn, {"ApiEndpoint": f"{api.url}/status/{code}", "Method": "GET",
                                "Authentication": {"ConnectionArn": api_key}})
    assert (status, failure["error"]) == ("FAILED", f"States.Http.StatusCode.{code}")
    cause = json.loads(failure["cause"])
    assert (cause["StatusCode"], cause["ResponseBody"]) == (code, {"problem": "said so"})


def test_a_server_nobody_listens_on_fails_as_states_http_socket(sfn: Any, api_key: str) -> None:
    from helpers.real_endpoints import free_port

    status, failure = run(sfn, {"ApiEndpoint": f"http://127.0.0.1:{free_port()}/x", "Method": "GET",
                                "Authentication": {"ConnectionArn": api_key}})
    assert (status, failure["error"]) == ("FAILED", "States.Http.Socket")


@pytest.mark.parametrize(("parameters", "named"), [
    ({"ApiEndpoint": "ftp://example.com", "Method": "GET"}, "ApiEndpoint"),
    ({"ApiEndpoint": "http://127.0.0.1:9/x", "Method": "FETCH"}, "Method"),
    ({"ApiEndpoint": "http://127.0.0.1:9/x", "Method": "GET",
      "Authentication": {"ConnectionArn": "arn:aws:events:us-east-1:123456789012:connection/none/0"}}, "does not exist"),
])
def test_unusable_parameters_fail_the_task_naming_what(sfn: Any, api_key: str, parameters: dict[str, Any],
                                                        named: str) -> None:
    status, failure = run(sfn, {"Authentication": {"ConnectionArn": api_key}, **parameters})
    assert (status, failure["error"]) == ("FAILED", "States.Runtime")
    assert named in failure["cause"]


@pytest.mark.parametrize(("parameters", "missing"), [
    (None, "ApiEndpoint, Method, Authentication"),
    ({"Method": "GET", "Authentication": {"ConnectionArn": "arn"}}, "ApiEndpoint"),
    ({"ApiEndpoint.$": "$.url", "Method": "GET"}, "Authentication"),
])
def test_a_definition_without_the_required_parameters_is_refused(sfn: Any, parameters: Any, missing: str) -> None:
    task: dict[str, Any] = {"Type": "Task", "Resource": "arn:aws:states:::http:invoke", "End": True}
    if parameters is not None:
        task["Parameters"] = parameters
    definition = json.dumps({"StartAt": "Call", "States": {"Call": task}})
    with pytest.raises(sfn.exceptions.InvalidDefinition, match=rf"These fields are required: \[{missing}\] "
                                                               r"at /States/Call/Parameters"):
        sfn.create_state_machine(name=f"h-{uuid.uuid4().hex[:8]}", definition=definition, roleArn=ROLE)


def test_an_http_task_is_mocked_like_any_task(api_key: str) -> None:
    from sfn_emulator import run_definition

    definition = {"StartAt": "Call", "States": {"Call": {
        "Type": "Task", "Resource": "arn:aws:states:::http:invoke", "End": True,
        "Parameters": {"ApiEndpoint": "https://api.example.com/orders", "Method": "GET",
                       "Authentication": {"ConnectionArn": api_key}}}}}
    mocked = {"StatusCode": 200, "StatusText": "OK", "Headers": {}, "ResponseBody": {"orders": []}}
    mock_config = {"StateMachines": {"Orders": {"TestCases": {"Empty": {"Call": "NoOrders"}}}},
                   "MockedResponses": {"NoOrders": {"0": {"Return": mocked}}}}
    result = run_definition(definition, {}, mock_config=mock_config, test_case="Empty", name="Orders")
    assert (result.status, result.output) == ("SUCCEEDED", mocked)


def _test_state(sfn: Any, api: Api, api_key: str, path: str, **options: Any) -> dict[str, Any]:
    state = {"Type": "Task", "Resource": "arn:aws:states:::http:invoke", "End": True,
             "Parameters": {"ApiEndpoint": f"{api.url}{path}", "Method": "POST", "Headers": {"X-Trace": "abc"},
                            "RequestBody": {"n": 1}, "Authentication": {"ConnectionArn": api_key}}}
    return sfn.test_state(definition=json.dumps(state), roleArn=ROLE, input="{}", **options)


@pytest.mark.parametrize("reveal", [False, True])
def test_test_state_trace_shows_the_request_and_response_hiding_the_connections_secrets(
        sfn: Any, api: Api, api_key: str, reveal: bool) -> None:
    """TRACE adds the HTTP request and response; what the connection added (here its API key header)
    is shown only with revealSecrets."""
    answer = _test_state(sfn, api, api_key, "/traced", inspectionLevel="TRACE", revealSecrets=reveal)
    request, response = answer["inspectionData"]["request"], answer["inspectionData"]["response"]
    assert (request["protocol"], request["method"], request["url"], json.loads(request["body"])) == (
        "http", "POST", f"{api.url}/traced", {"n": 1})
    headers = {name.lower(): value for name, value in json.loads(request["headers"]).items()}
    assert headers["x-trace"] == "abc"
    assert ("x-api-key" in headers) is reveal
    assert headers.get("x-api-key", "s3cret") == "s3cret"
    assert (response["statusCode"], response["statusMessage"], json.loads(response["body"])) == (
        "200", "OK", {"ok": True, "path": "/traced"})
    assert json.loads(response["headers"])["X-Custom"] == "yes"


def test_test_state_trace_shows_a_failed_answer_and_debug_shows_no_http(sfn: Any, api: Api, api_key: str) -> None:
    failed = _test_state(sfn, api, api_key, "/status/404", inspectionLevel="TRACE")
    assert (failed["status"], failed["error"]) == ("FAILED", "States.Http.StatusCode.404")
    assert failed["inspectionData"]["response"]["statusCode"] == "404"
    debug = _test_state(sfn, api, api_key, "/traced", inspectionLevel="DEBUG")
    assert debug["status"] == "SUCCEEDED"
    assert not {"request", "response"} & set(debug["inspectionData"])


def _redirect(server: HostileServer, to: str) -> str:
    return f"{server.url}/redirect?to={urllib.parse.quote(to, safe='')}"


@pytest.mark.parametrize("path", ["/forever", "/huge"], ids=["streams-forever", "declares-100MB"])
def test_an_answer_over_the_payload_quota_fails_with_data_limit_exceeded(sfn: Any, hostile_server: HostileServer,
                                                                         api_key: str, path: str) -> None:
    status, failure = run(sfn, {"ApiEndpoint": hostile_server.url + path, "Method": "GET",
                                "Authentication": {"ConnectionArn": api_key}})
    assert (status, failure["error"]) == ("FAILED", "States.DataLimitExceeded")


def test_an_answer_that_never_completes_fails_at_the_deadline_for_the_whole_request(
        sfn: Any, hostile_server: HostileServer, api_key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A byte every 0.2 s never lets a per-read timeout fire; the deadline (60 s on AWS, 1 s here) does."""
    monkeypatch.setattr(http_task, "DEADLINE_SECONDS", 1.0)
    status, failure = run(sfn, {"ApiEndpoint": hostile_server.url + "/drip", "Method": "GET",
                                "Authentication": {"ConnectionArn": api_key}})
    assert (status, failure["error"]) == ("FAILED", "States.Http.Socket")
    assert "within 1 seconds" in failure["cause"]


@pytest.mark.parametrize("kind", ["API_KEY", "BASIC"])
def test_a_redirect_to_another_origin_carries_nothing_of_the_connection(
        sfn: Any, hostile_server: HostileServer, other_origin_server: HostileServer, events: Any, kind: str) -> None:
    auth = ({"ApiKeyAuthParameters": {"ApiKeyName": "X-Api-Key", "ApiKeyValue": "s3cret"}} if kind == "API_KEY"
            else {"BasicAuthParameters": {"Username": "u", "Password": "p"}})
    auth["InvocationHttpParameters"] = {"HeaderParameters": [{"Key": "X-Tenant", "Value": "t-secret"}]}
    landing = f"/landing-{kind}"
    status, output = run(sfn, {"ApiEndpoint": _redirect(hostile_server, other_origin_server.url + landing), "Method": "GET",
                               "Headers": {"X-Own": "mine"},
                               "Authentication": {"ConnectionArn": connection(events, kind, auth)}})
    assert (status, output["StatusCode"]) == ("SUCCEEDED", 200)
    [received] = other_origin_server.received(landing)
    assert not {"x-api-key", "authorization", "x-tenant"} & set(received["headers"])
    assert received["headers"]["x-own"] == "mine"  # the task's own request goes on


def test_a_redirect_within_the_origin_keeps_the_connection(sfn: Any, hostile_server: HostileServer, api_key: str) -> None:
    status, _ = run(sfn, {"ApiEndpoint": _redirect(hostile_server, "/landing-same-origin"), "Method": "GET",
                          "Authentication": {"ConnectionArn": api_key}})
    assert status == "SUCCEEDED"
    assert hostile_server.received("/landing-same-origin")[0]["headers"]["x-api-key"] == "s3cret"


def test_a_redirect_to_another_scheme_is_not_followed(sfn: Any, hostile_server: HostileServer, api_key: str) -> None:
    status, failure = run(sfn, {"ApiEndpoint": _redirect(hostile_server, "ftp://127.0.0.1/secrets"), "Method": "GET",
                                "Authentication": {"ConnectionArn": api_key}})
    assert (status, failure["error"]) == ("FAILED", "States.Http.StatusCode.302")
