"""The server's front: API calls answered before the full (Flask) app exists, exactly as the full app
answers them, and every other request by the full app."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
from werkzeug.test import Client

from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator

SFN = "AWSStepFunctions."
JSON_1_0 = "application/x-amz-json-1.0"
SIGNED_FOR = "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240101/us-east-1/{service}/aws4_request, " \
             "SignedHeaders=host, Signature=0"

# (method, path, headers, body): what clients send to `/`, and the other paths the full app serves.
REQUESTS = {
    "an API call": ("POST", "/", {"X-Amz-Target": SFN + "ListStateMachines"}, b"{}"),
    "an API call signed for Step Functions": (
        "POST", "/", {"X-Amz-Target": SFN + "ListActivities", "Authorization": SIGNED_FOR.format(service="states")}, b"{}"),
    "a call with a model violation": ("POST", "/", {"X-Amz-Target": SFN + "ListStateMachines"}, b'{"maxResults": -1}'),
    "a call refused by the service": (
        "POST", "/", {"X-Amz-Target": SFN + "DescribeExecution"},
        b'{"executionArn": "arn:aws:states:us-east-1:123456789012:execution:none:none"}'),
    "a body that is not JSON": ("POST", "/", {"X-Amz-Target": SFN + "ListStateMachines"}, b"{not json"),
    "an unknown operation": ("POST", "/", {"X-Amz-Target": SFN + "ListEverything"}, b"{}"),
    "no target": ("POST", "/", {}, b"{}"),
    "a call signed for another service": (
        "POST", "/", {"X-Amz-Target": SFN + "ListStateMachines", "Authorization": SIGNED_FOR.format(service="sqs")}, b"{}"),
    "another service's call": (
        "POST", "/", {"X-Amz-Target": "AmazonSQS.ListQueues", "Authorization": SIGNED_FOR.format(service="sqs")}, b"{}"),
    "a query string": ("POST", "/?x=1", {"X-Amz-Target": SFN + "ListStateMachines"}, b"{}"),
    "GET /": ("GET", "/", {}, b""),
    "the health check": ("GET", "/_emulator/health", {}, b""),
    "the console": ("GET", "/_emulator/console/", {}, b""),
    "an unknown path": ("POST", "/nowhere", {"X-Amz-Target": SFN + "ListStateMachines"}, b"{}"),
}


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with Emulator(Settings(clock="manual")) as instance:
        yield instance


def _answer(app: Any, request: tuple[str, str, dict[str, str], bytes]) -> tuple[int, dict[str, str], bytes]:
    method, path, headers, body = request
    response = Client(app).open(path, method=method, headers={"Content-Type": JSON_1_0, **headers}, data=body)
    kept = {name.lower(): value for name, value in response.headers.items() if name.lower() != "x-amzn-requestid"}
    return response.status_code, kept, response.get_data()


@pytest.mark.parametrize("request_name", list(REQUESTS))
def test_the_front_answers_as_the_full_app_does(emulator: Emulator, request_name: str) -> None:
    request = REQUESTS[request_name]
    assert _answer(emulator.server_app, request) == _answer(emulator.app, request)


def test_the_first_api_answer_needs_no_flask_and_the_full_app_is_built_after_it() -> None:
    """In a fresh interpreter: nothing of Flask is loaded until the first answer has been sent."""
    script = textwrap.dedent("""
        import io, json, sys, time
        from sfn_emulator.config import Settings
        from sfn_emulator.runtime import Emulator

        with Emulator(Settings(clock="manual")) as emulator:
            statuses = []
            environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/", "CONTENT_LENGTH": "2",
                       "HTTP_X_AMZ_TARGET": "AWSStepFunctions.ListStateMachines", "wsgi.input": io.BytesIO(b"{}")}
            body = emulator.server_app(environ, lambda status, headers: statuses.append(status))
            answered = b"".join(body)
            before_close = "flask" in sys.modules
            body.close()  # the server has sent the answer
            deadline = time.monotonic() + 60
            while "flask" not in sys.modules and time.monotonic() < deadline:
                time.sleep(0.01)
            print(json.dumps({"status": statuses, "body": answered.decode(), "flask_before": before_close,
                              "flask_after": "flask" in sys.modules}))
    """)
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    outcome = json.loads(finished.stdout)
    assert outcome == {"status": ["200 OK"], "body": '{"stateMachines":[]}', "flask_before": False, "flask_after": True}
