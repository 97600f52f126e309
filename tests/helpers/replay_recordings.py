"""Recording histories with the emulator itself: each scenario runs a definition once, with real
callables, activity workers and callbacks answering, and hands back GetExecutionHistory's answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sfn_emulator import Emulator, Settings

ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/recorder"
LAMBDA = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:work"
ACTIVITY = f"arn:aws:states:us-east-1:{ACCOUNT}:activity:review"


def record(definition: dict[str, Any], input: Any, *, answer: Callable[[Emulator, str], None] | None = None,
           work: Callable[[Any, Any], Any] | None = None, child: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run `definition` in a fresh emulator (the Lambda function `work` served by `work`, a child machine
    named `Child` when given, `answer(emulator, execution_arn)` called when it waits) and return its history."""
    with Emulator(Settings()) as emulator:
        emulator.functions.register("work", work or (lambda event, context: {"worked": event}))
        emulator.service.create_activity(name="review")
        if child is not None:
            emulator.service.create_state_machine(name="Child", definition=json.dumps(child), roleArn=ROLE)
        machine = emulator.service.create_state_machine(name="Recorded", definition=json.dumps(definition), roleArn=ROLE)
        arn = emulator.service.start_execution(stateMachineArn=machine["stateMachineArn"], input=json.dumps(input))[
            "executionArn"]
        emulator.clock.run_until_idle()
        if answer is not None:
            answer(emulator, arn)
            emulator.clock.run_until_idle()
        assert emulator.service.describe_execution(executionArn=arn)["status"] != "RUNNING"
        return emulator.service.get_execution_history(executionArn=arn, maxResults=1000)


def waiting_token(emulator: Emulator, execution_arn: str) -> str:
    """The task token the execution's waiting callback task was given (its TaskScheduled parameters)."""
    events = emulator.service.get_execution_history(executionArn=execution_arn, maxResults=1000)["events"]
    scheduled = [event for event in events if event["type"] == "TaskScheduled"][-1]
    return str(json.loads(scheduled["taskScheduledEventDetails"]["parameters"])["Payload"]["token"])
