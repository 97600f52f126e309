"""The no-engine floor: a server that speaks the Step Functions JSON 1.0 protocol with nothing behind it.

    python benchmarks/floor_server.py --port 8200

The same web stack as sfn-emulator's (Flask served by waitress), answering each operation with a
canned body of the right shape: no validation, no store, no engine. What a workload costs on it is
the cost of its HTTP round trips and JSON alone, the least any emulator served this way can cost.

A history of N events is asked for with an execution named `events-N-...`: GetExecutionHistory
then hands out N canned events, page by page, as an emulator would.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

import waitress
from flask import Flask, Response, request

ACCOUNT_ARN = "arn:aws:states:us-east-1:123456789012"
CONTENT_TYPE = "application/x-amz-json-1.0"
DEFAULT_PAGE_SIZE = 100
_EVENT_COUNT = re.compile(r":events-(\d+)-")


def _event(event_id: int) -> dict[str, Any]:
    """A history event of the size a Pass state inside a Map writes."""
    return {"timestamp": 1.7e9, "type": "PassStateEntered", "id": event_id, "previousEventId": event_id - 1,
            "stateEnteredEventDetails": {"name": "Keep", "input": str(event_id), "inputDetails": {"truncated": False}}}


def _history(params: dict[str, Any]) -> dict[str, Any]:
    found = _EVENT_COUNT.search(str(params.get("executionArn", "")))
    total = int(found.group(1)) if found else 0
    start = int(params.get("nextToken") or 0)
    size = int(params.get("maxResults") or DEFAULT_PAGE_SIZE)
    ids = range(start + 1, min(start + size, total) + 1)
    ids = ids if not params.get("reverseOrder") else range(total - start, max(total - start - size, 0), -1)
    answer: dict[str, Any] = {"events": [_event(event_id) for event_id in ids]}
    if start + size < total:
        answer["nextToken"] = str(start + size)
    return answer


def answer(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """A canned answer of the shape botocore expects for `operation`."""
    if operation == "CreateStateMachine":
        return {"stateMachineArn": f"{ACCOUNT_ARN}:stateMachine:{params.get('name')}", "creationDate": 1.7e9}
    if operation == "StartExecution":
        machine = str(params.get("stateMachineArn", "")).rsplit(":", 1)[-1]
        return {"executionArn": f"{ACCOUNT_ARN}:execution:{machine}:{params.get('name')}", "startDate": 1.7e9}
    if operation == "DescribeExecution":
        return {"executionArn": params.get("executionArn"), "stateMachineArn": f"{ACCOUNT_ARN}:stateMachine:m",
                "status": "SUCCEEDED", "startDate": 1.7e9, "stopDate": 1.7e9, "input": "{}", "output": "{}"}
    if operation == "ListStateMachines":
        return {"stateMachines": []}
    if operation == "GetExecutionHistory":
        return _history(params)
    return {}


def create_app() -> Flask:
    app = Flask("floor")

    @app.post("/")
    def dispatch() -> Response:
        operation = (request.headers.get("X-Amz-Target") or "").rsplit(".", 1)[-1]
        params = json.loads(request.get_data() or b"{}")
        return Response(json.dumps(answer(operation, params)), status=200, content_type=CONTENT_TYPE)

    return app


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    waitress.serve(create_app(), host="127.0.0.1", port=parser.parse_args().port, threads=8, _quiet=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
