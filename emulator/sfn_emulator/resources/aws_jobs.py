"""`.sync` ("Run a Job") of the optimized integrations that start another service's job, on moto's backends.

AWS's developer guide ("Integrating services", each service's page) lists which actions run a job, what
Step Functions waits for, and what the task then returns:

- `athena:startQueryExecution.sync`: the query until it leaves QUEUED/RUNNING; GetQueryExecution's answer;
- `glue:startJobRun.sync`: the job run until it ends; GetJobRun's `JobRun`;
- `batch:submitJob.sync`: the job until SUCCEEDED or FAILED; DescribeJobs' job;
- `codebuild:startBuild.sync`: the build until it ends; BatchGetBuilds' build as `{"Build": ...}`;
- `ecs:runTask.sync`: the tasks until they are STOPPED; DescribeTasks' answer;
- `sagemaker:create<Kind>Job.sync` (training, transform, processing, hyperparameter tuning, labeling):
  the job until it ends; Describe<Kind>Job's answer.

The start's answer (with its HTTP metadata) is what the history's TaskSubmitted event records. A job
that does not succeed fails the task with `States.TaskFailed` and the job's description (the same JSON
the task would have returned) as the Cause. The start and every look at the job are calls of the
optimized integration (`AwsServiceIntegrations.call_optimized`), so a refused call fails the task with
the 1.x SDK's names (`Glue.EntityNotFoundException`, ...). The task's TimeoutSeconds covers the whole job.

moto moves a job on when it is looked at (Athena, Glue, CodeBuild end a job at once), not as time
passes, and never stops an ECS task by itself: a job still running after `_LOOKS` looks fails the task
with `States.Runtime` saying so, rather than the task waiting for what will not come.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable

from msgspec import Struct

from sfn_emulator.asl.errors import RUNTIME, TASK_FAILED, StatesError
from sfn_emulator.asl.task_targets import INTEGRATION, SYNC
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.outcomes import BoundCall, WatchedJob, bound_call

if TYPE_CHECKING:
    from sfn_emulator.resources.aws_services import AwsServiceIntegrations

RUNNING, SUCCEEDED, FAILED = "running", "succeeded", "failed"
_LOOKS = 10  # looks at a job before the emulator says moto will not end it


class JobKind(Struct, frozen=True):
    """How one action's job is watched: the operation that describes it (PascalCase parameters built from
    the start's answer and the task's parameters), the task's result from that description, and its fate."""

    describe: str
    describe_params: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
    job: Callable[[dict[str, Any]], Any]
    fate: Callable[[Any], str]


def _by_status(status: Callable[[Any], str], running: frozenset[str], succeeded: str) -> Callable[[Any], str]:
    def fate(job: Any) -> str:
        value = status(job)
        return RUNNING if value in running else SUCCEEDED if value == succeeded else FAILED

    return fate


def _ecs_fate(described: dict[str, Any]) -> str:
    """ECS tasks end when every one is STOPPED; they succeeded when every container that ran exited 0."""
    tasks = described.get("Tasks") or []
    if any(task.get("LastStatus") != "STOPPED" for task in tasks):
        return RUNNING
    exits = [container.get("ExitCode") for task in tasks for container in task.get("Containers") or []]
    return SUCCEEDED if tasks and all(code == 0 for code in exits) and not described.get("Failures") else FAILED


def _sagemaker_job(kind: str, running: frozenset[str] = frozenset({"InProgress", "Stopping"}),
                   succeeded: str = "Completed") -> JobKind:
    """A SageMaker `Create<kind>Job`, described by `Describe<kind>Job` with the `<kind>JobName` given."""
    name = f"{kind}JobName"
    return JobKind(f"describe{kind}Job", lambda _, params: {name: params.get(name)}, lambda described: described,
                   _by_status(lambda job: job.get(f"{kind}JobStatus"), running, succeeded))


JOBS: dict[tuple[str, str], JobKind] = {
    ("athena", "startQueryExecution"): JobKind(
        "getQueryExecution", lambda started, _: {"QueryExecutionId": started.get("QueryExecutionId")},
        lambda described: described,
        _by_status(lambda job: job["QueryExecution"]["Status"]["State"], frozenset({"QUEUED", "RUNNING"}),
                   "SUCCEEDED")),
    ("glue", "startJobRun"): JobKind(
        "getJobRun", lambda started, params: {"JobName": params.get("JobName"), "RunId": started.get("JobRunId")},
        lambda described: described["JobRun"],
        _by_status(lambda job: job.get("JobRunState"), frozenset({"STARTING", "RUNNING", "STOPPING", "WAITING"}),
                   "SUCCEEDED")),
    ("batch", "submitJob"): JobKind(
        "describeJobs", lambda started, _: {"Jobs": [started.get("JobId")]},
        lambda described: (described.get("Jobs") or [{}])[0],
        _by_status(lambda job: job.get("Status"),
                   frozenset({"SUBMITTED", "PENDING", "RUNNABLE", "STARTING", "RUNNING"}), "SUCCEEDED")),
    ("codebuild", "startBuild"): JobKind(
        "batchGetBuilds", lambda started, _: {"Ids": [started.get("Build", {}).get("Id")]},
        lambda described: {"Build": (described.get("Builds") or [{}])[0]},
        _by_status(lambda job: job["Build"].get("BuildStatus"), frozenset({"IN_PROGRESS"}), "SUCCEEDED")),
    ("ecs", "runTask"): JobKind(
        "describeTasks", lambda started, params: {
            "Cluster": params.get("Cluster"), "Tasks": [task.get("TaskArn") for task in started.get("Tasks") or []]},
        lambda described: described, _ecs_fate),
    ("sagemaker", "createTrainingJob"): _sagemaker_job("Training"),
    ("sagemaker", "createTransformJob"): _sagemaker_job("Transform"),
    ("sagemaker", "createProcessingJob"): _sagemaker_job("Processing"),
    ("sagemaker", "createHyperParameterTuningJob"): _sagemaker_job("HyperParameterTuning"),
    ("sagemaker", "createLabelingJob"): _sagemaker_job("Labeling", succeeded="Completed",
                                                       running=frozenset({"Initializing", "InProgress", "Stopping"})),
}


class AwsJobs:
    """The task resource for the `.sync` actions in `JOBS`: the call starts the job (its answer, HTTP
    metadata and all, is what TaskSubmitted records) and its `WatchedJob` follows it to its end.
    `integrations` gives the optimized integrations the calls go through, made on first use."""

    def __init__(self, integrations: Callable[[], AwsServiceIntegrations]) -> None:
        self._integrations = integrations

    def bind(self, request: TaskRequest) -> BoundCall | None:
        resource = request.resource
        if resource.kind != INTEGRATION or resource.pattern != SYNC or (resource.service, resource.action) not in JOBS:
            return None
        return bound_call(request, lambda: self._integrations().answer(request),
                          lambda submitted: WatchedJob(lambda: self._watch(request, submitted)))

    def _watch(self, request: TaskRequest, submitted: Any) -> Any:
        from sfn_emulator.resources.aws_services import OPTIMIZED

        resource = request.resource
        kind = JOBS[(resource.service, resource.action)]
        service = OPTIMIZED[resource.service]
        integrations = self._integrations()
        params = request.payload if isinstance(request.payload, dict) else {}
        started = submitted if isinstance(submitted, dict) else {}
        for _look in range(_LOOKS):
            _, described, _ = integrations.call_optimized(service, kind.describe, kind.describe_params(started, params),
                                                          request)
            job = kind.job(described)
            fate = kind.fate(job)
            if fate == SUCCEEDED:
                return job
            if fate == FAILED:
                raise StatesError(TASK_FAILED, json.dumps(job, separators=(",", ":")))
        raise StatesError(RUNTIME, f"sfn-emulator cannot wait for the job of '{resource.arn}': moto's in-memory "
                                   f"{service.error_prefix} backend still reports it running after {_LOOKS} looks "
                                   "and ends it only when told to")
