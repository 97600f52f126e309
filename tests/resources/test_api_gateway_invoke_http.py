"""`arn:aws:states:::apigateway:invoke` over HTTP, on a REST API the test builds in moto's API Gateway
with boto3, with a local HTTP server as the integrations' backend.

Table-driven from fixtures/resources/api_gateway_invoke.json (see its `about`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from flow import Flow, Server, outcome, task
from helpers.paths import FIXTURES_ROOT

FIXTURE = json.loads((FIXTURES_ROOT / "resources" / "api_gateway_invoke.json").read_text())
RESOURCE = "arn:aws:states:::apigateway:invoke"


class EchoBackend(BaseHTTPRequestHandler):
    """Answers what it was sent; 404 for a path that mentions 'missing'."""

    def _echo(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        answer = json.dumps({"method": self.command, "path": self.path, "body": self.rfile.read(length).decode(),
                             "custom": self.headers.get("X-Custom")}).encode()
        self.send_response(404 if "missing" in self.path else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-Backend", "echo")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    do_GET = do_POST = do_PUT = _echo

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def backend() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), EchoBackend)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def flow(start_server: Callable[..., Server]) -> Flow:
    return Flow(start_server())


@pytest.fixture(scope="module")
def endpoint(flow: Flow, backend: str) -> str:
    """The API described in the fixture's `about`, deployed to stage 'prod'."""
    gateway = flow.aws_client("apigateway")
    api = gateway.create_rest_api(name="orders")["id"]
    root = next(item["id"] for item in gateway.get_resources(restApiId=api)["items"] if item["path"] == "/")

    def resource(parent: str, part: str) -> str:
        return str(gateway.create_resource(restApiId=api, parentId=parent, pathPart=part)["id"])

    def mock(path: str, status: int, template: str, selection: str | None = None) -> None:
        node = resource(root, path)
        gateway.put_method(restApiId=api, resourceId=node, httpMethod="GET", authorizationType="NONE")
        gateway.put_integration(restApiId=api, resourceId=node, httpMethod="GET", type="MOCK",
                                requestTemplates={"application/json": json.dumps({"statusCode": status})})
        extra = {"selectionPattern": selection} if selection else {}
        gateway.put_integration_response(restApiId=api, resourceId=node, httpMethod="GET", statusCode=str(status),
                                         responseTemplates={"application/json": template}, **extra)

    def http(node: str, method: str, kind: str, uri: str) -> None:
        gateway.put_method(restApiId=api, resourceId=node, httpMethod=method, authorizationType="NONE")
        gateway.put_integration(restApiId=api, resourceId=node, httpMethod=method, type=kind,
                                integrationHttpMethod="POST" if kind == "HTTP" else "ANY", uri=uri)

    mock("mock", 200, '{"mocked": true}')
    mock("broken", 500, '{"broken": true}', selection=r"5\d{2}")
    http(resource(resource(root, "items"), "{id}"), "ANY", "HTTP_PROXY", f"{backend}/back/{{id}}")
    http(resource(resource(root, "files"), "{path+}"), "ANY", "HTTP_PROXY", f"{backend}/store/{{path}}")
    plain = resource(root, "plain")
    http(plain, "POST", "HTTP", f"{backend}/plain-backend")
    gateway.put_integration_response(restApiId=api, resourceId=plain, httpMethod="POST", statusCode="200")
    gateway.create_deployment(restApiId=api, stageName="prod")
    return f"{api}.execute-api.us-east-1.amazonaws.com"


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda case: case["name"])
def test_api_gateway_invoke(flow: Flow, endpoint: str, case: dict[str, Any]) -> None:
    parameters = json.loads(json.dumps(case["parameters"]).replace("${endpoint}", endpoint))
    described = outcome(flow.run(task(RESOURCE, Parameters=parameters), {}))
    expect = dict(case["expect"])
    if "cause_ends" in expect:
        assert described.pop("cause").endswith(expect.pop("cause_ends"))
    if "result" in expect:
        result = described.pop("output")
        headers = result.pop("Headers")
        assert all(isinstance(values, list) for values in headers.values())
        assert set(expect.pop("headers_include", [])) <= set(headers)
        assert result == expect.pop("result")
    assert described == expect


def test_wait_for_task_token_makes_the_call_then_waits(flow: Flow, endpoint: str) -> None:
    parameters = {"ApiEndpoint": endpoint, "Method": "GET", "Stage": "prod", "Path": "mock",
                  "Headers": {"TaskToken.$": "States.Array($$.Task.Token)"}}
    execution = flow.start(flow.machine(task(RESOURCE + ".waitForTaskToken", Parameters=parameters)))
    flow.settle()
    assert flow.describe(execution)["status"] == "RUNNING"
    scheduled = next(event for event in flow.events(execution) if event["type"] == "TaskScheduled")
    token = json.loads(scheduled["taskScheduledEventDetails"]["parameters"])["Headers"]["TaskToken"][0]
    flow.sfn.send_task_success(taskToken=token, output='{"done": true}')
    flow.settle()
    assert outcome(flow.describe(execution)) == {"status": "SUCCEEDED", "output": {"done": True}}
