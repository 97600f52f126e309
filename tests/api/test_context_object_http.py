"""The Context Object over HTTP with boto3: `Execution.RedriveTime` exists only once an execution has
been redriven (AWS's developer guide, "Context object"), in JSONPath (`$$.`) and JSONata
(`$states.context`) alike, in the format of every Context Object time (milliseconds, `Z`)."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest

ROLE = "arn:aws:iam::123456789012:role/context-tests"
TIME_FORMAT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
ABSENT = {  # the first run's failure: the field is not there yet
    "JSONPath": ("States.Runtime", "An error occurred while executing the state 'Read' (entered at the event id #2). "
                 "The JSONPath '$$.Execution.RedriveTime' specified for the field 'time.$' could not be found in the "
                 "input '{}'"),
    "JSONata": ("States.QueryEvaluationError", "An error occurred while executing the state 'Read' (entered at the "
                "event id #2). The JSONata expression '$states.context.Execution.RedriveTime' specified for the field "
                "'Output/time' returned nothing (undefined)."),
}
REDRIVE_TIME_READERS = {
    "JSONPath": {"Type": "Pass", "Parameters": {"count.$": "$$.Execution.RedriveCount",
                                                 "time.$": "$$.Execution.RedriveTime"}, "End": True},
    "JSONata": {"Type": "Pass", "QueryLanguage": "JSONata", "End": True,
                "Output": {"count": "{% $states.context.Execution.RedriveCount %}",
                           "time": "{% $states.context.Execution.RedriveTime %}"}},
}


@pytest.mark.parametrize("language", sorted(REDRIVE_TIME_READERS))
def test_redrive_time_exists_only_in_a_redriven_execution(sfn: Any, emulator_server: Any, language: str) -> None:
    definition = {"StartAt": "Read", "States": {"Read": REDRIVE_TIME_READERS[language]}}
    machine = sfn.create_state_machine(name=f"m-{uuid.uuid4().hex[:12]}", definition=json.dumps(definition),
                                       roleArn=ROLE)["stateMachineArn"]
    execution = sfn.start_execution(stateMachineArn=machine, input="{}")["executionArn"]
    assert emulator_server.emulator.clock.run_until_idle(10)
    first = sfn.describe_execution(executionArn=execution)
    assert (first["status"], first.get("error"), first.get("cause")) == ("FAILED", *ABSENT[language])

    redriven = sfn.redrive_execution(executionArn=execution)
    assert emulator_server.emulator.clock.run_until_idle(10)
    second = sfn.describe_execution(executionArn=execution)

    assert second["status"] == "SUCCEEDED", second
    output = json.loads(second["output"])
    assert output["count"] == 1
    assert TIME_FORMAT.fullmatch(output["time"]), output
    assert output["time"] == redriven["redriveDate"].strftime("%Y-%m-%dT%H:%M:%S.") + \
        f"{redriven['redriveDate'].microsecond // 1000:03d}Z"
