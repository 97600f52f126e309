"""How many times a request's JSON text is decoded on its way from boto3 to the engine.

    python benchmarks/parse_counts.py

An in-process boto3 client (the whole wire, service and engine path, no socket) creates a state
machine and starts one execution with a marked input; every `json.loads` whose text carries the
marker is counted by the place that called it. The input should be decoded once: the request body
once by the wire (the input inside it is still a string), then the input once by the service.
"""

from __future__ import annotations

import json
import os
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import boto3

from sfn_emulator.config import Settings
from sfn_emulator.inprocess import intercept
from sfn_emulator.runtime import Emulator

MARKER = "parse-count-marker"
DEFINITION = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}},
                         "Comment": MARKER})
ROOT = Path(__file__).resolve().parent.parent


def count_decodes(action: Any) -> Counter[str]:
    """The `json.loads` calls on text carrying MARKER that `action()` makes, by calling place."""
    real = json.loads
    places: Counter[str] = Counter()

    def counting(text: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(text, (str, bytes)) and MARKER in (text if isinstance(text, str) else text.decode("utf-8", "replace")):
            caller = traceback.extract_stack(limit=2)[0]
            places[f"{os.path.relpath(caller.filename, ROOT)}:{caller.lineno} {caller.name}"] += 1
        return real(text, *args, **kwargs)

    json.loads = counting
    try:
        action()
    finally:
        json.loads = real
    return places


def main() -> None:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        os.environ.setdefault(name, value)
    with Emulator(Settings()) as local, intercept(local):
        sfn = boto3.client("stepfunctions")
        created: dict[str, Any] = {}
        machine = count_decodes(lambda: created.update(sfn.create_state_machine(
            name="counted", definition=DEFINITION, roleArn="arn:aws:iam::123456789012:role/r")))
        started: dict[str, Any] = {}

        def start_and_run() -> None:
            started.update(sfn.start_execution(stateMachineArn=created["stateMachineArn"],
                                               input=json.dumps({"marker": MARKER})))
            local.engine.run_until_idle(timeout=10)

        execution = count_decodes(start_and_run)
        assert sfn.describe_execution(executionArn=started["executionArn"])["status"] == "SUCCEEDED"
    for title, places in (("CreateStateMachine", machine), ("StartExecution (until it has run)", execution)):
        print(f"{title}: {sum(places.values())} decodes of text carrying the request's JSON")
        for place, count in places.most_common():
            print(f"  {count}  {place}")


if __name__ == "__main__":
    main()
