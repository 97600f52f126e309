"""Integrations sent to real endpoints (`LAMBDA_ENDPOINT`, `SQS_ENDPOINT`, ... as AWS Step Functions Local
names them): SAM local, DynamoDB Local, ElasticMQ, LocalStack, another emulator.

A service with an endpoint is called there with boto3 (dummy credentials, the execution's region) for
every integration of it: the optimized ones and `aws-sdk:<service>:*`; for Lambda also function ARNs and
`lambda:invoke`; for Step Functions `states:startExecution` in each pattern and `aws-sdk:sfn:*`. The
answers and failures follow the same rules as the moto-backed integrations (`aws_services`,
`lambda_functions`, `nested_executions`): only where the call goes changes.

`states:startExecution.sync` (and `.sync:2`) on a remote endpoint waits for a child this emulator does
not run, on a clock it does not keep: the task polls the remote DescribeExecution in wall time
(from every 0.05 s up to every 2 s) until the child leaves RUNNING. Its TimeoutSeconds still counts on
the emulator's clock, which follows wall time while a task works, so a child that never ends times
the task out as on AWS; an auto clock does not skip ahead while the task polls.

Every answer of an endpoint is read by the emulator's bounded reader (`bounded_reads`, through
botocore's `before-send` event): up to 6 MB (Lambda's synchronous payload quota, the largest answer an
integration takes; more fails the task with `States.DataLimitExceeded`) and within 900 seconds for the
whole call (the longest a Lambda function runs; past it the SDK's client exception).
"""

from __future__ import annotations

import json
import threading
import time
from typing import TYPE_CHECKING, Any, Mapping

from botocore.config import Config
from botocore.exceptions import ClientError

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.limits import data_limit_exceeded
from sfn_emulator.asl.task_targets import (
    INTEGRATION,
    LAMBDA_FUNCTION,
    REQUEST_RESPONSE,
    SYNC,
    SYNC2,
    WAIT_FOR_TASK_TOKEN,
)
from sfn_emulator.resources.aws.sdk import SdkServices, sdk_v2_service_name
from sfn_emulator.resources.bounded_reads import ReadLimitExceeded, http_exchange
from sfn_emulator.resources.aws_services import OPTIMIZED, AwsServiceIntegrations, OptimizedService, sdk_v1_error
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.outcomes import BoundCall, bound_call, whole_task_call
from sfn_emulator.resources.lambda_functions import invoke_response
from sfn_emulator.resources.nested_executions import (
    epoch_millis,
    job_result,
    start_execution_error,
    start_execution_params,
    started_result,
)

if TYPE_CHECKING:
    import boto3
    from botocore.awsrequest import AWSPreparedRequest, AWSResponse
    from botocore.model import OperationModel

_ACCESS_KEY_ID = "sfn-emulator"  # dummy credentials: local endpoints accept any
_SECRET_ACCESS_KEY = "sfn-emulator"
_CLIENT_CONFIG = Config(parameter_validation=False, retries={"total_max_attempts": 1})
ANSWER_LIMIT_BYTES = 6 * 1024 * 1024  # Lambda's synchronous payload quota
ANSWER_DEADLINE_SECONDS = 900.0  # a Lambda function may run 900 s
_CONNECT_SECONDS = 5.0  # an endpoint that is not there fails the task at once
_LAMBDA = OptimizedService("lambda", frozenset({"invoke"}), "Lambda", "AWSLambda", "AWSLambdaException", None)
_STATES = OptimizedService("stepfunctions", frozenset({"startExecution"}), "StepFunctions", "AWSStepFunctions",
                           "AWSStepFunctionsException", None)
_RUNNING = "RUNNING"
_FIRST_POLL, _LAST_POLL = 0.05, 2.0  # seconds between DescribeExecution calls of a remote `.sync` child


class RemoteClients:
    """boto3 clients of the configured endpoints, one per (service, account, region)."""

    def __init__(self, endpoints: Mapping[str, str]) -> None:
        self.endpoints = dict(endpoints)  # botocore service name -> URL
        self._session: boto3.session.Session | None = None
        self._clients: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()

    def client(self, service: str, *, account: str, region: str) -> Any:
        """A client of `service` at its endpoint; the account is the endpoint's business (its credentials)."""
        with self._lock:
            client = self._clients.get((service, region))
            if client is None:
                if self._session is None:
                    import boto3

                    self._session = boto3.session.Session(aws_access_key_id=_ACCESS_KEY_ID,
                                                          aws_secret_access_key=_SECRET_ACCESS_KEY)
                client = self._session.client(service, region_name=region, endpoint_url=self.endpoints[service],
                                              config=_CLIENT_CONFIG)
                client.meta.events.register("before-send", _send_bounded)
                self._clients[(service, region)] = client
        return client

    def call_failed(self, operation: OperationModel, fault: Exception) -> StatesError:
        """No answer from the endpoint: the SDK's client-side failure, as AWS names one it cannot reach."""
        service = operation.service_model.service_name
        if isinstance(fault, ReadLimitExceeded):
            return data_limit_exceeded(service)
        prefix = OPTIMIZED[service].error_prefix if service in OPTIMIZED else sdk_v2_service_name(operation.service_model)
        return StatesError(f"{prefix}.SdkClientException",
                           f"Unable to execute HTTP request: {fault} (endpoint {self.endpoints.get(service)})")


def _send_bounded(request: AWSPreparedRequest, **_: Any) -> AWSResponse:
    """Send a botocore request with the bounded reader, answering it in botocore's terms."""
    import io
    import urllib.request

    from botocore.awsrequest import AWSResponse
    from urllib3 import HTTPResponse

    body = request.body
    data = body.encode() if isinstance(body, str) else bytes(body) if isinstance(body, (bytes, bytearray)) \
        else body.read() if body is not None else None
    headers = {name: value.decode() if isinstance(value, bytes) else value for name, value in request.headers.items()}
    answer = http_exchange(urllib.request.Request(request.url, data=data, headers=headers, method=request.method),
                           limit_bytes=ANSWER_LIMIT_BYTES, deadline_seconds=ANSWER_DEADLINE_SECONDS,
                           connect_seconds=_CONNECT_SECONDS)
    raw = HTTPResponse(body=io.BytesIO(answer.body), headers=answer.headers, status=answer.status,
                       preload_content=False)
    return AWSResponse(request.url, answer.status, raw.headers, raw)


class RemoteServiceIntegrations(AwsServiceIntegrations):
    """The optimized and `aws-sdk:*` integrations of the services that have an endpoint."""

    not_served: frozenset[str] = frozenset()  # aws-sdk:sfn too, when Step Functions has an endpoint

    def __init__(self, clients: RemoteClients) -> None:
        super().__init__(clients)
        self._endpoints = clients.endpoints

    def bind(self, request: TaskRequest) -> BoundCall | None:
        if request.resource.kind != INTEGRATION or self.service_of(request.resource) not in self._endpoints:
            return None
        return super().bind(request)


class RemoteLambda:
    """Lambda function ARNs and `lambda:invoke`, invoked at the Lambda endpoint."""

    def __init__(self, clients: RemoteClients) -> None:
        self._clients = clients
        self._operation = SdkServices().model("lambda").operation_model("Invoke")

    def bind(self, request: TaskRequest) -> BoundCall | None:
        resource = request.resource
        if resource.kind == LAMBDA_FUNCTION or (resource.is_action("lambda", "invoke")
                                                and resource.pattern in (REQUEST_RESPONSE, WAIT_FOR_TASK_TOKEN)):
            return bound_call(request, lambda: self._invoke(request))
        return None

    def _invoke(self, request: TaskRequest) -> Any:
        params = self._params(request)
        client = self._clients.client("lambda", account=request.account, region=request.region)
        try:
            response = client.invoke(**params)
        except ClientError as error:
            raise sdk_v1_error(_LAMBDA, error, self._operation) from None
        except Exception as fault:
            raise self._clients.call_failed(self._operation, fault) from None
        body = response["Payload"].read().decode("utf-8", errors="replace")
        if response.get("FunctionError"):
            raise _function_error(body)
        result = json.loads(body) if body.strip() else None
        return result if request.resource.kind == LAMBDA_FUNCTION else invoke_response(result, request)

    @staticmethod
    def _params(request: TaskRequest) -> dict[str, Any]:
        if request.resource.kind == LAMBDA_FUNCTION:
            return {"FunctionName": request.resource.arn, "Payload": json.dumps(request.payload).encode()}
        payload = request.payload if isinstance(request.payload, dict) else {}
        params = {key: payload[key] for key in ("FunctionName", "InvocationType", "LogType", "ClientContext",
                                                "Qualifier") if key in payload}
        event = payload.get("Payload")
        params["Payload"] = (event if isinstance(event, str) else json.dumps({} if event is None else event)).encode()
        return params


def _function_error(body: str) -> StatesError:
    """A function's failure as Step Functions reports it: Error is the payload's `errorType`
    (`Lambda.Unknown` when it names none), Cause is the payload itself."""
    try:
        report = json.loads(body)
    except ValueError:
        report = None
    error_type = report.get("errorType") if isinstance(report, dict) else None
    return StatesError(error_type if isinstance(error_type, str) and error_type else "Lambda.Unknown", body)


class RemoteStartExecution:
    """`states:startExecution` (request-response, `.waitForTaskToken`) at the Step Functions endpoint."""

    patterns = frozenset({REQUEST_RESPONSE, WAIT_FOR_TASK_TOKEN})

    def __init__(self, clients: RemoteClients) -> None:
        self._clients = clients
        self._operation = SdkServices().model("stepfunctions").operation_model("StartExecution")

    def bind(self, request: TaskRequest) -> BoundCall | None:
        resource = request.resource
        if resource.is_action("states", "startExecution") and resource.pattern in self.patterns:
            return self._call_for(request)
        return None

    def _call_for(self, request: TaskRequest) -> BoundCall:
        return bound_call(request, lambda: self._start(request))

    def _start(self, request: TaskRequest) -> Any:
        started = self._call(request, "start_execution", **start_execution_params(request.payload))
        return started_result(started["executionArn"], started["startDate"], request)

    def _call(self, request: TaskRequest, method: str, **params: Any) -> dict[str, Any]:
        client = self._clients.client("stepfunctions", account=request.account, region=request.region)
        try:
            return getattr(client, method)(**params)
        except ClientError as error:
            details = error.response.get("Error", {})
            status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 400)
            raise start_execution_error(str(details.get("Code", "")), str(details.get("Message", "")),
                                        status, request) from None
        except Exception as fault:
            raise self._clients.call_failed(self._operation, fault) from None


class RemoteStartExecutionSync(RemoteStartExecution):
    """`states:startExecution.sync` / `.sync:2` at the Step Functions endpoint: starts the child and
    polls it until it ends (see the module docstring); the whole task is answered here, so the
    history has no TaskSubmitted event between TaskStarted and TaskSucceeded."""

    patterns = frozenset({SYNC, SYNC2})

    def _call_for(self, request: TaskRequest) -> BoundCall:
        return whole_task_call(request, lambda: self._run(request))

    def _run(self, request: TaskRequest) -> Any:
        arn = self._call(request, "start_execution", **start_execution_params(request.payload))["executionArn"]
        pause = _FIRST_POLL
        while True:
            described = self._call(request, "describe_execution", executionArn=arn)
            if described["status"] != _RUNNING:
                break
            time.sleep(pause)
            pause = min(pause * 2, _LAST_POLL)
        return job_result({
            "ExecutionArn": arn, "Input": described.get("input", "{}"), "Name": described["name"],
            "StartDate": epoch_millis(described["startDate"]), "StateMachineArn": described["stateMachineArn"],
            "Status": described["status"], "StopDate": epoch_millis(described.get("stopDate", described["startDate"])),
            "Output": described.get("output"), "Error": described.get("error"), "Cause": described.get("cause"),
        }, json_output=request.resource.pattern == SYNC2)


def remote_resources(endpoints: Mapping[str, str]) -> list[Any]:
    """The task resources sending integrations to `endpoints` (botocore service name -> URL), in the order
    they are asked: Lambda functions, nested executions, then every other integration of those services."""
    if not endpoints:
        return []
    clients = RemoteClients(endpoints)
    resources: list[Any] = []
    if "lambda" in endpoints:
        resources.append(RemoteLambda(clients))
    if "stepfunctions" in endpoints:
        resources += [RemoteStartExecution(clients), RemoteStartExecutionSync(clients)]
    resources.append(RemoteServiceIntegrations(clients))
    return resources
