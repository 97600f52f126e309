"""`/_emulator/events`: the CloudEvents bus over HTTP, for tests in any language.

`POST` takes one CloudEvents 1.0 event or a JSON array of them (structured JSON mode, content
type `application/json` or `application/cloudevents+json`), delivers each to every execution
waiting for it and answers `{"events": [{"id": ..., "consumedBy": [executionArn, ...]}]}`. A body
that is not JSON, or an event without the required `specversion` ("1.0"), `id`, `source` and
`type`, gets a 400 `{"message": ...}` and nothing is delivered. Events nobody waits for are not
kept. `GET ?executionArn=ARN` answers `{"events": [...]}`, the events that execution produced.
"""

from __future__ import annotations

import json

from flask import Flask, Response, request

from sfn_emulator.engine.cloudevents import InvalidEvent
from sfn_emulator.engine.event_bus import EventBus

EVENTS_PATH = "/_emulator/events"


def mount_events_api(app: Flask, bus: EventBus) -> None:
    def answer(body: object, status: int = 200) -> Response:
        return Response(json.dumps(body), status=status, mimetype="application/json")

    @app.post(EVENTS_PATH)
    def publish_events() -> Response:
        try:
            body = json.loads(request.get_data())
        except (ValueError, RecursionError) as error:
            return answer({"message": f"The request body is not valid JSON: {error}"}, 400)
        try:
            return answer({"events": bus.publish(body)})
        except InvalidEvent as error:
            return answer({"message": str(error)}, 400)

    @app.get(EVENTS_PATH)
    def produced_events() -> Response:
        execution_arn = request.args.get("executionArn")
        if not execution_arn:
            return answer({"message": "Give the execution whose produced events to read: ?executionArn=ARN"}, 400)
        return answer({"events": bus.produced(execution_arn)})
