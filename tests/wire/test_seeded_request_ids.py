"""The `x-amzn-RequestId` of each answer (an API call's, a refused call's, an unroutable request's)
comes from the emulator's seed: two emulators with the same seed answer the same requests with the
same ids, and another seed with other ids."""

from __future__ import annotations

from werkzeug.test import Client

from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator

JSON_1_0 = "application/x-amz-json-1.0"
REQUESTS = [
    ("/", {"X-Amz-Target": "AWSStepFunctions.ListStateMachines"}, b"{}"),
    ("/", {"X-Amz-Target": "AWSStepFunctions.DescribeExecution"},
     b'{"executionArn": "arn:aws:states:us-east-1:123456789012:execution:none:none"}'),
    ("/nowhere", {"X-Amz-Target": "AWSStepFunctions.ListStateMachines"}, b"{}"),
]


def _request_ids(seed: int) -> list[str]:
    with Emulator(Settings(clock="manual", seed=seed)) as emulator:
        client = Client(emulator.server_app)
        return [client.post(path, headers={"Content-Type": JSON_1_0, **headers}, data=body).headers["x-amzn-RequestId"]
                for path, headers, body in REQUESTS]


def test_the_same_seed_answers_with_the_same_request_ids() -> None:
    first = _request_ids(seed=3)

    assert first == _request_ids(seed=3)
    assert len(set(first)) == len(REQUESTS)


def test_another_seed_answers_with_other_request_ids() -> None:
    assert set(_request_ids(seed=3)).isdisjoint(_request_ids(seed=4))
