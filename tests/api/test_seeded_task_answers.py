"""A seeded run repeats the answers of its task resources too: a Lambda callable's context
(`aws_request_id`, log stream), Lambda's Invoke response (request id, trace id, log tail) and an
unmapped function's error draw their ids from the execution's seed, and an unnamed machine's name
from the emulator's, so two runs with the same seed give the same history and output, and another seed other ids."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from sfn_emulator import Settings, run_definition

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:whoami"
DEFINITION = {
    "StartAt": "Direct",
    "States": {
        "Direct": {"Type": "Task", "Resource": FUNCTION, "ResultPath": "$.direct", "Next": "Integration"},
        "Integration": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                        "Parameters": {"FunctionName": "whoami", "Payload": {}, "LogType": "Tail"},
                        "ResultPath": "$.integration", "Next": "Queue"},
        "Queue": {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:sqs:createQueue",
                  "Parameters": {"QueueName": "seeded"}, "ResultPath": "$.queue", "Next": "Missing"},
        "Missing": {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:123456789012:function:nobody",
                    "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.missing", "Next": "Done"}], "End": True},
        "Done": {"Type": "Succeed"},
    },
}


def whoami(event: Any, context: Any) -> dict[str, str]:
    return {"request": context.aws_request_id, "stream": context.log_stream_name}


def _run(seed: int) -> tuple[str, Any]:
    result = run_definition(DEFINITION, {}, functions={"whoami": whoami},
                            settings=Settings(seed=seed, clock_start=START))
    assert result.status == "SUCCEEDED", (result.error, result.cause)
    history = [{key: value for key, value in event.items() if key != "timestamp"} for event in result.history]
    return json.dumps(history, sort_keys=True, default=str), result.output


def test_the_same_seed_gives_the_same_task_answers() -> None:
    first_history, first = _run(seed=11)
    second_history, second = _run(seed=11)

    assert first == second
    assert first_history == second_history
    headers = first["integration"]["SdkHttpMetadata"]["HttpHeaders"]
    assert headers["x-amzn-RequestId"] == first["integration"]["SdkResponseMetadata"]["RequestId"]
    assert "Request ID: " in first["missing"]["Cause"]


def test_another_seed_draws_other_task_ids() -> None:
    _, first = _run(seed=11)
    _, other = _run(seed=12)

    assert first["direct"]["request"] != other["direct"]["request"]
    assert first["direct"]["stream"] != other["direct"]["stream"]
    first_headers = first["integration"]["SdkHttpMetadata"]["HttpHeaders"]
    other_headers = other["integration"]["SdkHttpMetadata"]["HttpHeaders"]
    assert first_headers["X-Amzn-Trace-Id"] != other_headers["X-Amzn-Trace-Id"]
    assert first["integration"]["LogResult"] != other["integration"]["LogResult"]
    assert first["missing"]["Cause"] != other["missing"]["Cause"]
