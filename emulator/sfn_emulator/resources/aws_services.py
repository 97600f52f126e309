"""AWS service integrations of Task states, answered by moto's in-memory backends in this process.

Two families, as in Step Functions:

- optimized integrations (`arn:aws:states:::sqs:sendMessage`, `sns:publish`, `dynamodb:getItem`
  and friends, `events:putEvents`): the SDK response plus, except for EventBridge, the HTTP
  metadata the AWS SDK for Java 1.x adds (`SdkHttpMetadata`, `SdkResponseMetadata`); failures
  named `<SQS|SNS|DynamoDB|EventBridge>.<1.x exception class>` with the 1.x SDK's message text;
- `arn:aws:states:::aws-sdk:<service>:<action>`: any service moto implements except Step Functions
  itself (`aws-sdk:sfn` is the emulator's own control plane, see `sfn_emulator.resources.sfn_sdk`); the
  response alone, in PascalCase; failures named `<2.x service>.<2.x exception class>` with the 2.x
  SDK's message text.

Where moto answers otherwise than AWS, `aws.moto_gaps` amends the request's fate or the answer.
`arn:aws:states:::apigateway:invoke` calls a REST API of moto's API Gateway (`api_gateway`).

Athena, Glue, Batch, ECS, CodeBuild and SageMaker are optimized integrations too (the 1.x SDK's answers
and names, timestamps in epoch milliseconds as it writes them); their `.sync` jobs are followed by
`sfn_emulator.resources.aws_jobs`, which makes its calls through `call_optimized`.

`.waitForTaskToken` only makes the call: the engine then waits for the token. `.sync` requests are
not matched here.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from email.utils import format_datetime
from typing import Any, Callable, Mapping, Protocol
from urllib.parse import urlsplit

from msgspec import Struct, field

from botocore import xform_name
from botocore.exceptions import ClientError
from botocore.model import OperationModel

from sfn_emulator.asl.arns import split_arn
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.task_targets import INTEGRATION, REQUEST_RESPONSE, WAIT_FOR_TASK_TOKEN, ResourceArn
from sfn_emulator.process.randomness import Randomness
from sfn_emulator.resources.api_gateway import ApiGatewayInvoke
from sfn_emulator.resources.aws.backends import MotoBackends
from sfn_emulator.resources.aws.moto_gaps import (
    amend_error,
    amend_response,
    check_request,
    refused_entries,
    with_refused_entries,
)
from sfn_emulator.resources.aws.sdk import (
    check_parameters,
    SdkServices,
    epoch_millis,
    from_response,
    modelled_error_shape,
    sdk_v1_exception_name,
    sdk_v2_exception_name,
    sdk_v2_service_name,
    to_request,
)
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.outcomes import BoundCall, bound_call

_PATTERNS = frozenset({REQUEST_RESPONSE, WAIT_FOR_TASK_TOKEN})
_SDK_PREFIX = "aws-sdk:"
# sqs.us-east-1.amazonaws.com, us-east-1.queue.amazonaws.com: the queue URL's host names its region
_SQS_HOST_REGION = re.compile(r"^(?:sqs\.(?P<a>[a-z0-9-]+)|(?P<b>[a-z0-9-]+)\.queue)\.amazonaws\.com(?:\.cn)?$")
_ACCOUNT_ID = re.compile(r"^\d{12}$")


class OptimizedService(Struct, frozen=True):
    """One service with optimized integrations, and how the 1.x SDK behind them reports."""

    botocore_name: str
    actions: frozenset[str]
    error_prefix: str  # "SQS" in "SQS.AmazonSQSException"
    sdk_service_name: str  # "AmazonSQS" in "(Service: AmazonSQS; ...)"
    base_exception: str  # the 1.x class for errors the model does not declare
    # headers AWS answers with besides Content-Type/Content-Length/Date/x-amzn-RequestId; None: no HTTP metadata
    fixed_headers: Mapping[str, str] | None = field(default_factory=dict)
    crc32_header: bool = False


OPTIMIZED: Mapping[str, OptimizedService] = {
    service.botocore_name: service
    for service in (
        OptimizedService("sqs", frozenset({"sendMessage"}), "SQS", "AmazonSQS", "AmazonSQSException",
                         {"connection": "keep-alive"}),
        OptimizedService("sns", frozenset({"publish"}), "SNS", "AmazonSNS", "AmazonSNSException",
                         {"connection": "keep-alive"}),
        OptimizedService("dynamodb", frozenset({"getItem", "putItem", "deleteItem", "updateItem"}), "DynamoDB",
                         "AmazonDynamoDBv2", "AmazonDynamoDBException",
                         {"Connection": "keep-alive", "Server": "Server"}, crc32_header=True),
        OptimizedService("events", frozenset({"putEvents"}), "EventBridge", "AmazonEventBridge",
                         "AmazonEventBridgeException", None),
        # the services whose optimized integrations run a job (`.sync`: `sfn_emulator.resources.aws_jobs`)
        OptimizedService("athena", frozenset({"startQueryExecution", "stopQueryExecution", "getQueryExecution",
                                              "getQueryResults"}), "Athena", "AmazonAthena", "AmazonAthenaException"),
        OptimizedService("glue", frozenset({"startJobRun"}), "Glue", "AWSGlue", "AWSGlueException"),
        OptimizedService("batch", frozenset({"submitJob"}), "Batch", "AWSBatch", "AWSBatchException"),
        OptimizedService("ecs", frozenset({"runTask"}), "ECS", "AmazonECS", "AmazonECSException"),
        OptimizedService("codebuild", frozenset({"startBuild", "stopBuild", "batchDeleteBuilds", "batchGetReports"}),
                         "CodeBuild", "AWSCodeBuild", "AWSCodeBuildException"),
        OptimizedService("sagemaker", frozenset({
            "createEndpoint", "createEndpointConfig", "createHyperParameterTuningJob", "createLabelingJob",
            "createModel", "createProcessingJob", "createTrainingJob", "createTransformJob", "updateEndpoint"}),
            "SageMaker", "AmazonSageMaker", "AmazonSageMakerException"),
    )
}


class ServiceClients(Protocol):
    """Where the calls go: boto3 clients by service, account and region, and how a call that got
    no answer from the service fails the task."""

    def client(self, service: str, *, account: str, region: str) -> Any: ...

    def call_failed(self, operation: OperationModel, fault: Exception) -> StatesError: ...


class AwsServiceIntegrations:
    """The task resource for AWS service integrations; `backends` reaches the same moto state users see,
    or (`sfn_emulator.resources.remote_endpoints`) real endpoints, which then answer by the same rules."""

    # aws-sdk:sfn calls Step Functions itself: the emulator's control plane, not a moto backend.
    not_served = frozenset({"sfn"})

    def __init__(self, backends: ServiceClients | None = None) -> None:
        self.backends: ServiceClients = backends or MotoBackends()
        self._services = SdkServices()
        # API Gateway's data plane is moto's models, reached in this process only
        self._api_gateway = ApiGatewayInvoke() if isinstance(self.backends, MotoBackends) else None

    # -- the TaskResource interface -----------------------------------------------------------
    def bind(self, request: TaskRequest) -> BoundCall | None:
        answer = self._answerer(request.resource)
        return bound_call(request, lambda: answer(request)) if answer is not None else None

    def answer(self, request: TaskRequest) -> Any:
        """The action's answer to a request (JSON), or its failure as a `StatesError`, whatever the
        request's pattern: a `.sync` job (`resources.aws_jobs`) is started through it."""
        answer = self._answerer(request.resource, any_pattern=True)
        if answer is None:
            raise ValueError(f"no integration serves {request.resource.arn}")
        return answer(request)

    def _answerer(self, resource: ResourceArn, *, any_pattern: bool = False) -> Callable[[TaskRequest], Any] | None:
        """What answers requests for `resource`, found once; None when no integration serves it (with
        its pattern, unless `any_pattern`)."""
        if resource.kind != INTEGRATION or not (any_pattern or resource.pattern in _PATTERNS):
            return None
        if self._api_gateway is not None and self._api_gateway.serves(resource):
            return self._api_gateway.answer
        if resource.service in OPTIMIZED:
            service = OPTIMIZED[resource.service]
            return (lambda request: self._invoke_optimized(service, request)) if resource.action in service.actions \
                else None
        found = self._sdk_operation(resource.service.removeprefix(_SDK_PREFIX), resource.action) \
            if resource.service.startswith(_SDK_PREFIX) else None
        if found is None:
            return None
        service_name, operation = found
        return lambda request: self._invoke_sdk(service_name, operation, request)

    # -- aws-sdk:* ------------------------------------------------------------------------------
    def service_of(self, resource: ResourceArn) -> str | None:
        """The botocore name of the service an integration ARN calls (`aws-sdk:eventbridge` -> `events`)."""
        if resource.service.startswith(_SDK_PREFIX):
            return self._services.botocore_name(resource.service.removeprefix(_SDK_PREFIX))
        return resource.service if resource.service in OPTIMIZED else None

    def _sdk_operation(self, arn_service: str, action: str) -> tuple[str, OperationModel] | None:
        if arn_service in self.not_served:
            return None
        service = self._services.botocore_name(arn_service)
        if service is None:
            return None
        model = self._services.model(service)
        if _operation_name(action) not in model.operation_names:
            return None
        return service, model.operation_model(_operation_name(action))

    def _invoke_sdk(self, service: str, operation: OperationModel, request: TaskRequest) -> Any:
        client = self.backends.client(service, account=request.account, region=request.region)
        try:
            response = self._call(client, operation, request.payload, request.randomness())
        except ClientError as error:
            raise sdk_v2_error(error, operation) from None
        response.pop("ResponseMetadata", None)
        if request.binary_body and hasattr(response.get("Body"), "read"):
            response["Body"] = base64.b64encode(response["Body"].read()).decode("ascii")
        return from_response(response, operation.output_shape)

    # -- optimized integrations -----------------------------------------------------------------
    def _invoke_optimized(self, service: OptimizedService, request: TaskRequest) -> Any:
        payload = request.payload if isinstance(request.payload, dict) else {}
        operation, result, http = self.call_optimized(service, request.resource.action, payload, request)
        if service.fixed_headers is not None:
            result.update(_http_metadata(service, operation, http, result, request))
        return result

    def call_optimized(self, service: OptimizedService, action: str, payload: dict[str, Any],
                       request: TaskRequest) -> tuple[OperationModel, dict[str, Any], dict[str, Any]]:
        """One call of an optimized integration's service: its operation, the result (PascalCase, no HTTP
        metadata) and botocore's ResponseMetadata; a refusal raised as the 1.x SDK names it."""
        model = self._services.model(service.botocore_name)
        operation = model.operation_model(_operation_name(action))
        account, region = request.account, request.region
        if service.botocore_name == "sqs":
            account, region = _queue_location(payload.get("QueueUrl"), account, region)
        if service.botocore_name == "events":
            payload = _with_execution_resources(payload, request.execution_arn)
        client = self.backends.client(service.botocore_name, account=account, region=region)
        try:
            response = self._call(client, operation, payload, request.randomness())
        except ClientError as error:
            raise sdk_v1_error(service, error, operation) from None
        http = response.pop("ResponseMetadata", {})
        result = from_response(response, operation.output_shape, epoch_millis)
        if service.botocore_name == "events" and result.get("FailedEntryCount", 0) > 0:
            raise StatesError("EventBridge.FailedEntry", json.dumps(result, separators=(",", ":")))
        return operation, result, http

    # -- shared -----------------------------------------------------------------------------------
    def _call(self, client: Any, operation: OperationModel, payload: Any, ids: Randomness) -> dict[str, Any]:
        """Make the call, amended where moto answers otherwise than AWS; anything but the service's own
        error answer fails as `backends` says (moto: the emulator's limit, said plainly)."""
        params = {}
        if operation.input_shape is not None and isinstance(payload, dict):
            check_parameters(payload, operation.input_shape)
            params = to_request(payload, operation.input_shape)
        check_request(operation, params, ids)
        to_send, refused = refused_entries(operation, params)
        if to_send is None:  # AWS failed every entry itself
            return with_refused_entries({}, refused)
        try:
            response = getattr(client, xform_name(operation.name))(**to_send)
        except ClientError as error:
            raise amend_error(operation, to_send, error, ids) from None
        except Exception as fault:  # no answer from the service: moto lacks the operation, an endpoint is down, ...
            raise self.backends.call_failed(operation, fault) from None
        return with_refused_entries(amend_response(operation, to_send, response), refused)


def _operation_name(action: str) -> str:
    """The model's operation named by an ARN's action: `sendMessage` -> `SendMessage`."""
    return action[:1].upper() + action[1:]


def _queue_location(queue_url: Any, account: str, region: str) -> tuple[str, str]:
    """The account and region of a queue URL (the 1.x SDK sends the request to the URL's host).

    The emulator resolves no host names: a URL without a `/<account>/<queue>` path is taken for a
    host that cannot be reached, which is how AWS fails such a URL.
    """
    if not isinstance(queue_url, str) or not queue_url.startswith(("http://", "https://")):
        return account, region
    parts = urlsplit(queue_url)
    path = [part for part in parts.path.split("/") if part]
    if len(path) < 2:
        raise StatesError("SQS.SdkClientException",
                          f"Unable to execute HTTP request: {parts.hostname}: Name or service not known")
    if _ACCOUNT_ID.match(path[-2]):
        account = path[-2]
    host = _SQS_HOST_REGION.match(parts.hostname or "")
    if host:
        region = host["a"] or host["b"]
    return account, region


def _with_execution_resources(payload: dict[str, Any], execution_arn: str) -> dict[str, Any]:
    """PutEvents entries with the state machine's and the execution's ARNs appended to `Resources`."""
    entries = payload.get("Entries")
    if not isinstance(entries, list):
        return payload
    added = [_state_machine_arn(execution_arn), execution_arn]
    stamped = [{**entry, "Resources": [*(entry.get("Resources") or []), *added]} if isinstance(entry, dict) else entry
               for entry in entries]
    return {**payload, "Entries": stamped}


def _state_machine_arn(execution_arn: str) -> str:
    """arn:aws:states:r:a:execution:Machine:name (or express:...) -> arn:aws:states:r:a:stateMachine:Machine"""
    arn = split_arn(execution_arn)
    if arn is None or len(arn.resource_parts) < 2:
        return execution_arn
    machine = arn.resource_parts[1].split("/")[0]
    return ":".join(("arn", arn.partition, arn.service, arn.region, arn.account, "stateMachine", machine))


def sdk_v1_error(service: OptimizedService, error: ClientError, operation: OperationModel) -> StatesError:
    details = error.response.get("Error", {})
    code = str(details.get("Code", ""))
    shape = modelled_error_shape(operation.service_model, code, details.get("QueryErrorCode"))
    name = sdk_v1_exception_name(shape) if shape else service.base_exception
    metadata = error.response.get("ResponseMetadata", {})
    cause = _sdk_v1_cause(service, str(details.get("Message", "")), metadata.get("HTTPStatusCode", 400), code,
                          metadata.get("RequestId", ""))
    return StatesError(f"{service.error_prefix}.{name}", cause)


def _sdk_v1_cause(service: OptimizedService, message: str, status: int, code: str, request_id: str) -> str:
    return (f"{message} (Service: {service.sdk_service_name}; Status Code: {status}; Error Code: {code}; "
            f"Request ID: {request_id}; Proxy: null)")


def sdk_v2_error(error: ClientError, operation: OperationModel) -> StatesError:
    model = operation.service_model
    service = sdk_v2_service_name(model)
    details = error.response.get("Error", {})
    shape = modelled_error_shape(model, str(details.get("Code", "")), details.get("QueryErrorCode"))
    name = sdk_v2_exception_name(shape) if shape else f"{service}Exception"
    metadata = error.response.get("ResponseMetadata", {})
    facts = [f"Service: {service}", f"Status Code: {metadata.get('HTTPStatusCode', 400)}",
             f"Request ID: {metadata.get('RequestId', '')}"]
    if metadata.get("HostId"):
        facts.append(f"Extended Request ID: {metadata['HostId']}")
    message = details.get("Message", "")
    # the SDK writes an absent message as Java writes a null string
    return StatesError(f"{service}.{name}", f"{'null' if message is None else message} ({', '.join(facts)})")


def _http_metadata(service: OptimizedService, operation: OperationModel, metadata: dict[str, Any],
                   result: dict[str, Any], request: TaskRequest) -> dict[str, Any]:
    """`SdkHttpMetadata` and `SdkResponseMetadata` as the 1.x SDK reports AWS's HTTP response
    (`metadata`: botocore's ResponseMetadata of the call)."""
    request_id = metadata.get("RequestId") or request.randomness().uuid()
    protocol = operation.service_model.protocol
    if protocol in ("json", "rest-json"):  # the body AWS sends: the result's members, compact
        body = json.dumps(result, separators=(",", ":")).encode()
        length = str(len(body))
    else:  # an XML document: its length as the backend sent it
        body = b""
        length = str(metadata.get("HTTPHeaders", {}).get("content-length", "0"))
    headers = {
        **(service.fixed_headers or {}),
        "Content-Length": length,
        "Content-Type": _content_type(operation),
        "Date": format_datetime(request.now, usegmt=True) if request.now else "",
        "x-amzn-RequestId": request_id,
    }
    if service.crc32_header:
        headers["x-amz-crc32"] = str(zlib.crc32(body))
    ordered = dict(sorted(headers.items(), key=lambda item: item[0].lower()))
    return {
        "SdkHttpMetadata": {
            "AllHttpHeaders": {name: [value] for name, value in ordered.items()},
            "HttpHeaders": ordered,
            "HttpStatusCode": metadata.get("HTTPStatusCode", 200),
        },
        "SdkResponseMetadata": {"RequestId": request_id},
    }



def _content_type(operation: OperationModel) -> str:
    """The Content-Type of a service's answers: its JSON version's (`application/x-amz-json-1.1`), XML for
    Query services, plain JSON for REST services."""
    metadata = operation.service_model.metadata
    if metadata.get("protocol") == "json":
        return f"application/x-amz-json-{metadata.get('jsonVersion', '1.0')}"
    return "text/xml" if metadata.get("protocol") == "query" else "application/json"
