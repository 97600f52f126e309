"""A request's JSON is decoded once on its way from the wire to the service: the body by the wire,
then each JSON text inside it (here an execution input) by the service, never the body again."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

ROLE = "arn:aws:iam::123456789012:role/sfn"
MARKER = "body-read-once-marker"
PASS = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}})


def test_a_start_execution_body_and_its_input_are_each_decoded_once(sfn: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    machine = sfn.create_state_machine(name=f"once-{uuid.uuid4().hex[:8]}", roleArn=ROLE, definition=PASS)
    decoded: list[str] = []
    real = json.loads

    def counting(text: Any, *args: Any, **kwargs: Any) -> Any:
        as_text = text.decode() if isinstance(text, (bytes, bytearray)) else text
        if isinstance(as_text, str) and MARKER in as_text:
            decoded.append("body" if '"stateMachineArn"' in as_text else "input")
        return real(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counting)  # the server answers on a thread of this process
    sfn.start_execution(stateMachineArn=machine["stateMachineArn"], input=json.dumps({"marker": MARKER}))
    monkeypatch.undo()
    assert sorted(decoded) == ["body", "input"]
