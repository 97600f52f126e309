"""The task-resource contract: what a Task attempt asks for (`TaskRequest`), and the chain that
answers it (`TaskResources`).

A resource is any object with ``bind(request)``: None when it does not serve the request, else the
`BoundCall` that makes the call (`sfn_emulator.resources.outcomes`), found once, with what the
lookup found. The call returns `Succeeded`, `Failed` or `Pending`; the request's target
(`TaskRequest.resource`) was read from the definition when it was parsed.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, Protocol, Sequence

from msgspec import Struct, field

from sfn_emulator.asl.arns import split_arn
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.task_targets import LAMBDA_FUNCTION, ResourceArn
from sfn_emulator.protocol.partitions import partition_for
from sfn_emulator.process.randomness import Randomness, process_seed
from sfn_emulator.resources.outcomes import BoundCall, failed_call

log = logging.getLogger(__name__)


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
    binary_body: bool = False  # an object's streamed body answered as base64 of its bytes (ItemReader's gzip files)
    with_connection: bool = True  # an HTTP call authenticates through its EventBridge connection (False: a dialect's own)
    seed: str | None = None  # what the ids in the answer are drawn from (`randomness`)
    # where in the execution the Task runs: (Parallel or Map state, branch or iteration index), outermost first
    place: tuple[tuple[str, int], ...] = ()
    payload_text: str | None = None  # the payload's JSON text, when the Task state wrote it already (for its history)

    def randomness(self) -> Randomness:
        """The source of the ids this request's answer carries (request ids, trace ids): seeded from
        the execution's seed and the request's place in its history, so a run started with `--seed`
        answers alike every time; fresh when the request has no seed. Call it once per answer."""
        return Randomness(self.seed if self.seed is not None else process_seed(None))

    def payload_json(self) -> str:
        """The payload as JSON text: the Task state's own, else written now. A Lambda handler's event
        is decoded from it: a copy, never the engine's objects."""
        return self.payload_text if self.payload_text is not None else compact_json(self.payload)


class TaskResource(Protocol):
    def bind(self, request: TaskRequest) -> BoundCall | None: ...


class TaskResources(Struct):
    """The ordered chain of resources; the first that binds a request answers it."""

    chain: Sequence[TaskResource] = ()
    # How to serve a Lambda function nothing serves, in the terms of the entry point in use.
    function_hint: str = "register a Python callable for it (`Emulator.functions.register(name_or_arn, handler)`)"
    hinted: set[str] = field(default_factory=set)  # the functions whose hint went to the log already

    def bind(self, request: TaskRequest) -> BoundCall | None:
        """The call of the first resource that serves `request`, or None."""
        for resource in self.chain:
            call = resource.bind(request)
            if call is not None:
                return call
        return None

    def route(self, request: TaskRequest) -> BoundCall:
        """The call that answers `request`: the first resource's that serves it, else one failing as
        AWS fails a call to nothing."""
        call = self.bind(request)
        return call if call is not None else failed_call(self.unmapped(request))

    def unmapped(self, request: TaskRequest) -> StatesError:
        """The error for a resource nothing can run. A Lambda function gets AWS's own not-found error
        (the hint on how to map it goes to the log, once per function and chain); anything else says
        which ARN."""
        resource = request.resource
        if resource.kind == LAMBDA_FUNCTION or resource.service == "lambda":
            arn = _function_arn(request)
            if arn not in self.hinted:
                self.hinted.add(arn)
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
    reference = request.resource.arn if request.resource.kind == LAMBDA_FUNCTION else str(payload.get("FunctionName", ""))
    return split_function_reference(reference, request.region, request.account)[1]
