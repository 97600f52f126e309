"""The task-resource interface: what a Task state asks for, and the chain that answers it.

A resource is any object with ``matches(request)`` and ``invoke(request)``. ``invoke`` runs on a
worker thread (it may block or be slow), returns the task's JSON result, and raises
`StatesError` for a task failure. Callback (``.waitForTaskToken``) and activity waits are the
engine's business, not a resource's — unless the resource is a `WholeTaskResource` (mocks):
then its answer is the whole task's result, with no callback, `.sync` job or activity worker
(`sfn_emulator.resources.outcomes` types an answer accordingly).
"""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import Any, Protocol, Sequence, runtime_checkable

from msgspec import Struct, field

from sfn_emulator.asl.arns import Arn, split_arn
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.protocol.partitions import partition_for
from sfn_emulator.process.randomness import Randomness, process_seed
from sfn_emulator.resources.control_plane import FinishedExecution

log = logging.getLogger(__name__)

REQUEST_RESPONSE = "REQUEST_RESPONSE"
SYNC = "SYNC"
SYNC2 = "SYNC2"
WAIT_FOR_TASK_TOKEN = "WAIT_FOR_TASK_TOKEN"

_NAME_FIELD = re.compile(r"[\w-]*")  # a partition or a region
_ACCOUNT_FIELD = re.compile(r"\d*")
_LAMBDA_ACCOUNT = re.compile(r"\d{12}")
_STATES_RESOURCE = re.compile(r".+")


class ResourceArn(Struct, frozen=True):
    """A Task `Resource`, parsed once: which kind of resource, which service and action, which pattern."""

    arn: str
    kind: str  # "lambda" (a function ARN), "activity", "integration" (arn:aws:states:::service:action), "unknown"
    service: str = ""  # integrations: "lambda", "sqs", "states", "aws-sdk:s3", ...
    action: str = ""  # integrations: "invoke", "sendMessage", "startExecution", ...
    pattern: str = REQUEST_RESPONSE
    region: str = ""
    account: str = ""
    name: str = ""  # function or activity name

    @property
    def resource_type(self) -> str:
        """`resourceType` in Task* history events: the service name (`lambda`, `aws-sdk:s3`)."""
        return self.service

    @property
    def resource(self) -> str:
        """`resource` in Task* history events: the action with its pattern suffix."""
        suffix = {SYNC: ".sync", SYNC2: ".sync:2", WAIT_FOR_TASK_TOKEN: ".waitForTaskToken"}.get(self.pattern, "")
        return self.action + suffix


def parse_resource(arn: str) -> ResourceArn:
    """Classify a Task `Resource` the way Step Functions does: a Lambda function's ARN
    (`arn:aws:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER]`), an activity's, or an integration's
    (`arn:aws:states:::SERVICE:ACTION[.PATTERN]`)."""
    fields = split_arn(arn)
    if fields is None or not fields.partition or not _NAME_FIELD.fullmatch(fields.partition) \
            or not _NAME_FIELD.fullmatch(fields.region):
        return ResourceArn(arn, "unknown")
    if fields.service == "lambda":
        return _lambda_function(fields) or ResourceArn(arn, "unknown")
    if fields.service != "states" or not _ACCOUNT_FIELD.fullmatch(fields.account) \
            or not _STATES_RESOURCE.fullmatch(fields.resource):
        return ResourceArn(arn, "unknown")
    rest = fields.resource
    if rest.startswith("activity:"):
        return ResourceArn(arn, "activity", region=fields.region, account=fields.account,
                           name=rest.removeprefix("activity:"))
    pattern = REQUEST_RESPONSE
    for suffix, name in ((".sync:2", SYNC2), (".sync", SYNC), (".waitForTaskToken", WAIT_FOR_TASK_TOKEN)):
        if rest.endswith(suffix):
            rest, pattern = rest[: -len(suffix)], name
            break
    service, _, action = rest.rpartition(":")
    return ResourceArn(arn, "integration", service=service, action=action, pattern=pattern,
                       region=fields.region, account=fields.account)


def _lambda_function(fields: Arn) -> ResourceArn | None:
    resource = fields.resource_parts
    if not fields.region or not _LAMBDA_ACCOUNT.fullmatch(fields.account) or resource[0] != "function" \
            or len(resource) not in (2, 3) or not all(resource[1:]):
        return None
    return ResourceArn(fields.text, "lambda", service="lambda", region=fields.region, account=fields.account,
                       name=":".join(resource[1:]))


# A TaskRequest.extra flag: answer an object's streamed body as base64 of its bytes, not as text (the
# ItemReader reads gzip-compressed S3 Inventory files through it).
BINARY_BODY = "binary_body"


class TaskRequest(Struct, frozen=True):
    """Everything a resource may need to answer one Task attempt."""

    resource: ResourceArn
    payload: Any  # the effective parameters (JSON value)
    execution_arn: str
    state_machine_name: str
    state_name: str
    account: str
    region: str
    attempt: int = 0  # 0 for the first try, then 1, 2, ... per retry
    task_token: str | None = None
    timeout_seconds: float | None = None
    now: datetime | None = None
    test_case: str | None = None  # the mock test case this execution runs under
    extra: dict[str, Any] = field(default_factory=dict)
    seed: str | None = None  # what the ids in the answer are drawn from (`randomness`)
    # where in the execution the Task runs: (Parallel or Map state, branch or iteration index), outermost first
    place: tuple[tuple[str, int], ...] = ()

    def randomness(self) -> Randomness:
        """The source of the ids this request's answer carries (request ids, trace ids): seeded from
        the execution's seed and the request's place in its history, so a run started with `--seed`
        answers alike every time; fresh when the request has no seed. Call it once per answer."""
        return Randomness(self.seed if self.seed is not None else process_seed(None))


class TaskResource(Protocol):
    def matches(self, request: TaskRequest) -> bool: ...

    def invoke(self, request: TaskRequest) -> Any: ...


class WholeTaskResource:
    """A resource whose answer is the whole task's result, whatever the request's pattern: a mock
    (its response stands for the callback, the `.sync` job or the activity worker) or a remote
    endpoint's `.sync` call (the engine has no execution of its own to wait for)."""


@runtime_checkable
class SyncResource(Protocol):
    """A resource with a `.sync` pattern whose job is an execution of this emulator: after
    `invoke` has started it, the engine waits for `awaited_execution(...)` to finish and the
    task's result is `completed(...)` (which raises `StatesError` when the job failed)."""

    def matches(self, request: TaskRequest) -> bool: ...

    def invoke(self, request: TaskRequest) -> Any: ...

    def awaited_execution(self, submitted: Any) -> str: ...

    def completed(self, request: TaskRequest, execution: FinishedExecution) -> Any: ...


@runtime_checkable
class JobResource(Protocol):
    """A resource with a `.sync` pattern whose job another service runs: after `invoke` has started it
    (its answer is the task's TaskSubmitted output), the engine has `watch(...)` follow the job to its end
    on a worker thread; what it returns is the task's result (it raises `StatesError` when the job failed)."""

    def matches(self, request: TaskRequest) -> bool: ...

    def invoke(self, request: TaskRequest) -> Any: ...

    def watch(self, request: TaskRequest, submitted: Any) -> Any: ...


class TaskResources(Struct):
    """The ordered chain of resources; the first that matches a request answers it."""

    chain: Sequence[TaskResource] = ()
    # How to serve a Lambda function nothing serves, in the terms of the entry point in use.
    function_hint: str = "register a Python callable for it (`Emulator.functions.register(name_or_arn, handler)`)"

    def find(self, request: TaskRequest) -> TaskResource:
        for resource in self.chain:
            if resource.matches(request):
                return resource
        raise self.unmapped(request)

    def settles_whole_task(self, request: TaskRequest) -> bool:
        """Is `request` answered by a `WholeTaskResource`? (An unmapped one is not: it fails when invoked.)"""
        try:
            return isinstance(self.find(request), WholeTaskResource)
        except StatesError:
            return False

    def unmapped(self, request: TaskRequest) -> StatesError:
        """The error for a resource nothing can run. A Lambda function gets AWS's own not-found error
        (the hint on how to map it goes to the log, once per function); anything else says which ARN."""
        resource = request.resource
        if resource.kind == "lambda" or resource.service == "lambda":
            arn = _function_arn(request)
            if arn not in _HINTED:
                _HINTED.add(arn)
                log.warning("No Python callable is registered for the Lambda function %s: %s.", arn,
                            self.function_hint)
            return StatesError(
                "Lambda.ResourceNotFoundException",
                f"Function not found: {arn}:$LATEST (Service: AWSLambda; Status Code: 404; Error Code: "
                f"ResourceNotFoundException; Request ID: {request.randomness().uuid()}; Proxy: null)",
            )
        return StatesError(
            "States.Runtime",
            f"sfn-emulator cannot run the resource '{resource.arn}': no mock test case, registered callable or "
            "built-in integration serves it.",
        )


_HINTED: set[str] = set()


def split_function_reference(reference: str, region: str, account: str) -> tuple[str, str, str | None]:
    """Resolve a Lambda `FunctionName` (name, `name:qualifier`, partial or full ARN) to (name, unqualified ARN, qualifier)."""
    parts = reference.split(":")
    arn = split_arn(reference)
    if arn is not None:
        region, account = arn.region, arn.account
        _, name, *qualifiers = arn.resource_parts if len(arn.resource_parts) > 1 else ("", *arn.resource_parts)
        qualifier = qualifiers[0] if qualifiers else None
    elif len(parts) >= 3 and parts[1] == "function":  # 123456789012:function:name[:qualifier]
        account, name = parts[0], parts[2]
        qualifier = parts[3] if len(parts) > 3 else None
    else:
        name = parts[0]
        qualifier = parts[1] if len(parts) > 1 else None
    return name, f"arn:{partition_for(region)}:lambda:{region}:{account}:function:{name}", qualifier


def _function_arn(request: TaskRequest) -> str:
    """The unqualified ARN of the function a Lambda task names (by ARN, partial ARN or name)."""
    payload = request.payload if isinstance(request.payload, dict) else {}
    reference = request.resource.arn if request.resource.kind == "lambda" else str(payload.get("FunctionName", ""))
    return split_function_reference(reference, request.region, request.account)[1]
