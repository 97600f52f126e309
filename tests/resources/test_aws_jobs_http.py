"""Optimized integrations that run another service's job (Athena, Glue, Batch, ECS, CodeBuild) over HTTP,
on moto's backends reached through the emulator's own endpoint: request-response answers, `.sync`
answers (the job's description once it ended), and failures in the 1.x SDK's names.

Table-driven from fixtures/resources/aws_jobs.json (see its `about`).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from flow import Flow, Server, outcome, task
from helpers.expectations import includes, matches
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.resources.aws_jobs import FAILED, JOBS, RUNNING, SUCCEEDED

FIXTURE = json.loads((FIXTURES_ROOT / "resources" / "aws_jobs.json").read_text())


@pytest.fixture(scope="module")
def flow(start_server: Callable[..., Server]) -> Flow:
    return Flow(start_server())


def at(value: Any, path: str) -> Any:
    for key in path.split("."):
        value = value[key]
    return value


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda case: case["name"])
def test_job_integration(flow: Flow, case: dict[str, Any]) -> None:
    case = json.loads(json.dumps(case).replace("${id}", f"j{uuid.uuid4().hex[:12]}"))
    for call in case.get("setup", []):
        getattr(flow.aws_client(call["service"]), call["op"])(**call["kwargs"])
    described = outcome(flow.run(task(f"arn:aws:states:::{case['resource']}", Parameters=case["parameters"])))
    expect = case["expect"]
    assert described["status"] == expect["status"], described
    if "error" in expect:
        assert described["error"] == expect["error"], described
        assert matches(expect["cause"], described["cause"]), described["cause"]
        return
    output = described["output"]
    if "output_keys" in expect:
        assert sorted(output) == sorted(expect["output_keys"])
    assert includes(expect.get("output_includes", {}), output), output
    for path in expect.get("epoch_millis", []):
        stamp = at(output, path)
        assert isinstance(stamp, int) and not isinstance(stamp, bool) and stamp > 10**12, (path, stamp)


def test_a_job_moto_keeps_running_fails_the_task_with_a_clear_error(flow: Flow) -> None:
    """moto moves a job on when it is looked at; told to hold it (its state manager, `manual`), the
    task says why it cannot wait instead of waiting for what will not come."""
    from moto.moto_api import state_manager

    name = f"j{uuid.uuid4().hex[:12]}"
    glue = flow.aws_client("glue")
    glue.create_job(Name=name, Role="role", Command={"Name": "glueetl"})
    state_manager.set_transition("glue::job_run", {"progression": "manual", "times": 1000})
    try:
        described = outcome(flow.run(task("arn:aws:states:::glue:startJobRun.sync", Parameters={"JobName": name})))
    finally:
        state_manager.unset_transition("glue::job_run")
    assert (described["status"], described["error"]) == ("FAILED", "States.Runtime")
    assert described["cause"].endswith(
        "sfn-emulator cannot wait for the job of 'arn:aws:states:::glue:startJobRun.sync': moto's in-memory Glue "
        "backend still reports it running after 10 looks and ends it only when told to")


@pytest.mark.parametrize(("job", "described", "fate"), [
    (("athena", "startQueryExecution"), {"QueryExecution": {"Status": {"State": "QUEUED"}}}, RUNNING),
    (("athena", "startQueryExecution"), {"QueryExecution": {"Status": {"State": "SUCCEEDED"}}}, SUCCEEDED),
    (("athena", "startQueryExecution"), {"QueryExecution": {"Status": {"State": "CANCELLED"}}}, FAILED),
    (("glue", "startJobRun"), {"JobRun": {"JobRunState": "WAITING"}}, RUNNING),
    (("glue", "startJobRun"), {"JobRun": {"JobRunState": "TIMEOUT"}}, FAILED),
    (("batch", "submitJob"), {"Jobs": [{"Status": "RUNNABLE"}]}, RUNNING),
    (("batch", "submitJob"), {"Jobs": [{"Status": "FAILED"}]}, FAILED),
    (("codebuild", "startBuild"), {"Builds": [{"BuildStatus": "FAULT"}]}, FAILED),
    (("ecs", "runTask"), {"Tasks": [{"LastStatus": "STOPPED", "Containers": [{"ExitCode": 0}]},
                                    {"LastStatus": "DEPROVISIONING"}], "Failures": []}, RUNNING),
    (("ecs", "runTask"), {"Tasks": [{"LastStatus": "STOPPED", "Containers": [{"ExitCode": 0}, {"ExitCode": 1}]}],
                          "Failures": []}, FAILED),
    (("ecs", "runTask"), {"Tasks": [{"LastStatus": "STOPPED", "Containers": [{}]}], "Failures": []}, FAILED),
])
def test_when_a_job_has_ended_and_whether_it_succeeded(job: tuple[str, str], described: dict[str, Any],
                                                       fate: str) -> None:
    kind = JOBS[job]
    assert kind.fate(kind.job(described)) == fate


@pytest.mark.parametrize(("kind", "status", "fate"), [
    ("Training", "InProgress", RUNNING), ("Training", "Completed", SUCCEEDED), ("Training", "Stopped", FAILED),
    ("Transform", "Failed", FAILED), ("Processing", "Stopping", RUNNING), ("HyperParameterTuning", "Completed", SUCCEEDED),
    ("Labeling", "Initializing", RUNNING),
])
def test_when_a_sagemaker_job_has_ended(kind: str, status: str, fate: str) -> None:
    job = JOBS[("sagemaker", f"create{kind}Job")]
    assert job.describe_params({}, {f"{kind}JobName": "job"}) == {f"{kind}JobName": "job"}
    assert job.fate(job.job({f"{kind}JobStatus": status})) == fate


def test_a_sync_job_is_submitted_then_succeeds_in_the_history(flow: Flow) -> None:
    """AWS records the start's answer as TaskSubmitted's output, then the job's end as TaskSucceeded."""
    name = f"j{uuid.uuid4().hex[:12]}"
    flow.aws_client("glue").create_job(Name=name, Role="role", Command={"Name": "glueetl"})
    execution = flow.start(flow.machine(task("arn:aws:states:::glue:startJobRun.sync", Parameters={"JobName": name})))
    flow.settle()
    events = flow.events(execution)
    assert [event["type"] for event in events] == [
        "ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted", "TaskSucceeded",
        "TaskStateExited", "ExecutionSucceeded"]
    submitted = json.loads(next(event for event in events if event["type"] == "TaskSubmitted")
                           ["taskSubmittedEventDetails"]["output"])
    assert sorted(submitted) == ["JobRunId", "SdkHttpMetadata", "SdkResponseMetadata"]
    succeeded = json.loads(next(event for event in events if event["type"] == "TaskSucceeded")
                           ["taskSucceededEventDetails"]["output"])
    assert (succeeded["Id"], succeeded["JobRunState"]) == (submitted["JobRunId"], "SUCCEEDED")

