"""Lambda functions as local Python callables: ``handler(event, context)``, registered by name or
ARN with an optional function timeout, and run as AWS Lambda's Python runtime runs them (see
`sfn_emulator.resources.lambda_runtime`)."""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import format_datetime
from typing import Any, Callable, Mapping

from sfn_emulator.resources import lambda_runtime
from sfn_emulator.resources.base import TaskRequest, split_function_reference
from sfn_emulator.resources.function_map import MappedFunction
from sfn_emulator.resources.lambda_runtime import DEFAULT_FUNCTION_TIMEOUT, Handler, Invocation, check_timeout

_LOG_TAIL = "Tail"
_LOG_TAIL_BYTES = 4096  # Lambda answers the last 4 KB of the log


@dataclass
class LambdaContext:
    """The `context` argument a Lambda handler receives; the remaining time counts down the
    function timeout in wall time, as the timeout itself does."""

    function_name: str
    function_version: str
    invoked_function_arn: str
    memory_limit_in_mb: int
    aws_request_id: str
    log_group_name: str
    log_stream_name: str
    timeout_seconds: float = DEFAULT_FUNCTION_TIMEOUT
    _started: float = field(default_factory=time.monotonic)

    def get_remaining_time_in_millis(self) -> int:
        """Milliseconds left before the function timeout ends the invocation."""
        return max(0, int((self.timeout_seconds - (time.monotonic() - self._started)) * 1000))


class LambdaFunctions:
    """Registered handlers keyed by function name or full function ARN; a task resource.

    With a clock (`now`), handlers read clock time (see `callable_time`); `default_timeout` is the
    function timeout of handlers registered without one."""

    def __init__(self, now: Callable[[], datetime] | None = None,
                 default_timeout: float = DEFAULT_FUNCTION_TIMEOUT) -> None:
        self._functions: dict[str, MappedFunction] = {}
        self._lock = threading.Lock()
        self._now = now
        self.default_timeout = check_timeout(default_timeout, "the default function timeout")

    def register(self, name_or_arn: str, handler: Handler, *, timeout: float | None = None) -> None:
        """Serve `name_or_arn` with `handler`; `timeout` (seconds of wall time) bounds each call."""
        if not callable(handler):
            raise TypeError(f"the handler for {name_or_arn!r} is not callable")
        if timeout is not None:
            timeout = check_timeout(timeout, f"the timeout of {name_or_arn!r}")
        with self._lock:
            self._functions[name_or_arn] = MappedFunction(handler, timeout)

    def function(self, name_or_arn: str, *, timeout: float | None = None) -> Callable[[Handler], Handler]:
        """Decorator form of `register`."""

        def decorate(handler: Handler) -> Handler:
            self.register(name_or_arn, handler, timeout=timeout)
            return handler

        return decorate

    def unregister(self, name_or_arn: str) -> None:
        with self._lock:
            self._functions.pop(name_or_arn, None)

    def clear(self) -> None:
        with self._lock:
            self._functions.clear()

    def update(self, functions: Mapping[str, Handler | MappedFunction]) -> None:
        """Register several: plain handlers, or `MappedFunction`s as `load_function_map` gives them."""
        for key, entry in functions.items():
            if isinstance(entry, MappedFunction):
                self.register(key, entry.handler, timeout=entry.timeout_seconds)
            else:
                self.register(key, entry)

    def lookup(self, reference: str, region: str, account: str) -> tuple[MappedFunction, str, str | None] | None:
        """The function for a reference, with its ARN and qualifier; None when nothing is registered."""
        name, arn, qualifier = split_function_reference(reference, region, account)
        with self._lock:
            # The reference as written first: a key that is no function name or ARN (a Serverless
            # Workflow function's `resource` URI) is found only so.
            for key in (reference, f"{arn}:{qualifier}" if qualifier else None, arn, name):
                if key and key in self._functions:
                    return self._functions[key], arn, qualifier
        return None

    # -- the TaskResource interface ------------------------------------------------------------
    def matches(self, request: TaskRequest) -> bool:
        reference = self._reference(request)
        return reference is not None and self.lookup(reference, request.region, request.account) is not None

    def invoke(self, request: TaskRequest) -> Any:
        reference = self._reference(request)
        assert reference is not None
        found = self.lookup(reference, request.region, request.account)
        assert found is not None
        function, arn, qualifier = found
        if request.resource.kind == "lambda":
            return self._run(function, request.payload, arn, qualifier, compact=False)
        payload = request.payload.get("Payload") if isinstance(request.payload, dict) else None
        if payload is None:
            payload = {}  # an invocation without a payload reaches the handler as an empty object
        elif isinstance(payload, str):
            try:
                payload = json.loads(payload)
            except ValueError:
                pass
        result = self._run(function, payload, arn, qualifier, compact=True)
        return invoke_response(result, request)

    @staticmethod
    def _reference(request: TaskRequest) -> str | None:
        resource = request.resource
        if resource.kind == "lambda":
            return resource.arn
        if resource.kind == "integration" and resource.service == "lambda" and resource.action == "invoke":
            if isinstance(request.payload, dict) and isinstance(request.payload.get("FunctionName"), str):
                return request.payload["FunctionName"]
        return None

    def _run(self, function: MappedFunction, event: Any, arn: str, qualifier: str | None, *, compact: bool) -> Any:
        request_id = str(uuid.uuid4())
        name = arn.rsplit(":", 1)[-1]
        timeout = function.timeout_seconds if function.timeout_seconds is not None else self.default_timeout
        context = LambdaContext(
            function_name=name,
            function_version="$LATEST",
            invoked_function_arn=f"{arn}:{qualifier}" if qualifier else arn,
            memory_limit_in_mb=128,
            aws_request_id=request_id,
            log_group_name=f"/aws/lambda/{name}",
            log_stream_name=f"{(self._now() if self._now else datetime.now(timezone.utc)):%Y/%m/%d}/[$LATEST]{uuid.uuid4().hex}",
            timeout_seconds=timeout,
        )
        invocation = Invocation(function_name=name, request_id=request_id, timeout_seconds=timeout, now=self._now,
                                compact=compact)
        return lambda_runtime.invoke(function.handler, event, context, invocation)


def invoke_response(payload: Any, request: TaskRequest) -> dict[str, Any]:
    """The result of `arn:aws:states:::lambda:invoke`: Lambda's Invoke response as the AWS SDK for Java shapes it.

    With `LogType: Tail` Lambda also answers the tail of the invocation's log, base64-encoded, as the
    `LogResult` member and the `X-Amz-Log-Result` header (Lambda API reference, Invoke)."""
    request_id = str(uuid.uuid4())
    length = str(len(json.dumps(payload).encode()))  # the Python runtime's own serialisation, default spacing
    date = format_datetime(request.now, usegmt=True) if request.now else ""
    trace_id = f"Root=1-{uuid.uuid4().hex[:8]}-{uuid.uuid4().hex[:24]}"
    headers = {
        "Connection": "keep-alive",
        "Content-Length": length,
        "Content-Type": "application/json",
        "Date": date,
        "X-Amz-Executed-Version": "$LATEST",
        "x-amzn-Remapped-Content-Length": "0",
        "x-amzn-RequestId": request_id,
        "X-Amzn-Trace-Id": trace_id,
    }
    tail: dict[str, str] = {}
    if isinstance(request.payload, dict) and request.payload.get("LogType") == _LOG_TAIL:
        tail["LogResult"] = headers["X-Amz-Log-Result"] = _log_tail(request_id)
    return {
        "ExecutedVersion": "$LATEST",
        **tail,
        "Payload": payload,
        "SdkHttpMetadata": {
            "AllHttpHeaders": {key: [value] for key, value in headers.items()},
            "HttpHeaders": headers,
            "HttpStatusCode": 200,
        },
        "SdkResponseMetadata": {"RequestId": request_id},
        "StatusCode": 200,
    }


def _log_tail(request_id: str) -> str:
    """The lines the Lambda runtime logs for every invocation (what a handler prints is not captured)."""
    log = (f"START RequestId: {request_id} Version: $LATEST\n"
           f"END RequestId: {request_id}\n"
           f"REPORT RequestId: {request_id}\tDuration: 1.00 ms\tBilled Duration: 1 ms\t"
           f"Memory Size: 128 MB\tMax Memory Used: 128 MB\t\n")
    return base64.b64encode(log.encode()[-_LOG_TAIL_BYTES:]).decode("ascii")
