"""Lambda functions as local Python callables: ``handler(event, context)``, registered by name or
ARN with an optional function timeout, and run as AWS Lambda's Python runtime runs them (see
`sfn_emulator.resources.lambda_runtime`)."""

from __future__ import annotations

import base64
import json
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Mapping

from msgspec import Struct, field

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.task_targets import LAMBDA_FUNCTION
from sfn_emulator.process.randomness import Randomness, process_seed
from sfn_emulator.resources import lambda_runtime
from sfn_emulator.resources.aws.sdk import check_parameters, request_shape
from sfn_emulator.resources.base import TaskRequest, split_function_reference
from sfn_emulator.resources.function_map import MappedFunction
from sfn_emulator.resources.lambda_invoke import (
    EVENT,
    REQUEST_RESPONSE,
    SDK_SERVICE,
    STATUS_CODES,
    invocation_type,
    invoke_event,
    is_invoke,
    sdk_invoke_response,
)
from sfn_emulator.resources.outcomes import BoundCall, bound_call, failed_call
from sfn_emulator.resources.lambda_runtime import DEFAULT_FUNCTION_TIMEOUT, Handler, Invocation, check_timeout

_LOG_TAIL = "Tail"
_LOG_TAIL_BYTES = 4096  # Lambda answers the last 4 KB of the log


class LambdaContext(Struct):
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

    def registered(self) -> dict[str, MappedFunction]:
        """Every function registered, by name or ARN (to serve them elsewhere too: a replay's own emulator)."""
        with self._lock:
            return dict(self._functions)

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

    def call(self, reference: str, event: Any, *, region: str, account: str) -> Any:
        """Run the function `reference` names with `event` as Lambda's Invoke would (Amazon SWF's
        ScheduleLambdaFunction, an EventBridge target), bounded by its timeout here (no engine keeps
        it): its JSON result, or its failure as a `StatesError`. LookupError when nothing is
        registered for it."""
        found = self.lookup(reference, region, account)
        if found is None:
            raise LookupError(reference)
        function, arn, qualifier = found
        invocation = self._invocation(function, arn, qualifier, compact=True, ids=Randomness(process_seed(None)))
        return lambda_runtime.run_within_timeout(function.handler, compact_json(event), invocation.context(),
                                                 invocation.invocation)

    # -- the TaskResource interface ------------------------------------------------------------
    def bind(self, request: TaskRequest) -> BoundCall | None:
        """The call of the function the request names, looked up once; None when none is registered.
        A call that runs the function carries its timeout as the call's `WallDeadline`."""
        reference = self._reference(request)
        found = self.lookup(reference, request.region, request.account) if reference is not None else None
        if found is None:
            return None
        function, arn, qualifier = found
        ids = request.randomness()
        if request.resource.kind == LAMBDA_FUNCTION:
            invocation = self._invocation(function, arn, qualifier, compact=False, ids=ids)
            return bound_call(request, invocation.runner(function.handler, request.payload_json),
                              timeout=invocation.timeout())
        params = request.payload if isinstance(request.payload, dict) else {}
        try:
            check_parameters(params, request_shape("lambda", "Invoke"))
        except StatesError as error:
            return failed_call(error)
        event, kind = invoke_event(params), invocation_type(params)
        sdk = request.resource.service == SDK_SERVICE
        if kind != REQUEST_RESPONSE:
            return bound_call(request, lambda: self._queue(request, function, event, arn, qualifier, kind, sdk, ids))
        invocation = self._invocation(function, arn, qualifier, compact=not sdk, ids=ids)
        run = invocation.runner(function.handler, lambda: compact_json(event))
        if not sdk:
            return bound_call(request, lambda: invoke_response(run(), request, ids=ids),
                              timeout=invocation.timeout())

        def answered(outcome: Callable[[], Any]) -> Callable[[], Any]:
            def answer() -> Any:
                try:
                    result = outcome()
                except StatesError as failure:  # the function failed; the call to Lambda did not
                    result = failure
                return sdk_invoke_response(result, kind, _log_tail(ids.uuid()) if _wants_tail(params) else None)
            return answer

        seconds, timed_out = invocation.timeout()
        return bound_call(request, answered(run), timeout=(seconds, answered(timed_out)))

    def _queue(self, request: TaskRequest, function: MappedFunction, event: Any, arn: str, qualifier: str | None,
               kind: str, sdk: bool, ids: Randomness) -> Any:
        """An `Event` or `DryRun` invocation: answered at once, without the function's result. An
        `Event` one still runs the function (queued, on a thread of its own): nobody waits for it or
        hears of its failure, which goes to the function's own destinations."""
        if kind == EVENT:
            invocation = self._invocation(function, arn, qualifier, compact=True, ids=request.randomness())
            threading.Thread(target=invocation.runner(function.handler, lambda: compact_json(event), heard=False),
                             daemon=True).start()
        return sdk_invoke_response(None, kind, None) if sdk else invoke_response("", request, kind, ids)

    @staticmethod
    def _reference(request: TaskRequest) -> str | None:
        resource = request.resource
        if resource.kind == LAMBDA_FUNCTION:
            return resource.arn
        if is_invoke(resource):
            params = request.payload if isinstance(request.payload, dict) else {}
            reference, qualifier = params.get("FunctionName"), params.get("Qualifier")
            if not isinstance(reference, str):
                return None
            # Invoke's Qualifier names the version or alias when the FunctionName does not (Lambda API reference)
            if isinstance(qualifier, str) and qualifier and \
                    split_function_reference(reference, request.region, request.account)[2] is None:
                return f"{reference}:{qualifier}"
            return reference
        return None

    def _invocation(self, function: MappedFunction, arn: str, qualifier: str | None, *, compact: bool,
                    ids: Randomness) -> _PreparedInvocation:
        """One invocation of `function`, its ids drawn now (so a timeout's report names the same request)."""
        name = arn.rsplit(":", 1)[-1]
        timeout = function.timeout_seconds if function.timeout_seconds is not None else self.default_timeout
        invocation = Invocation(function_name=name, request_id=ids.uuid(), timeout_seconds=timeout, now=self._now,
                                compact=compact)
        day = self._now() if self._now else datetime.now(timezone.utc)
        return _PreparedInvocation(invocation, f"{arn}:{qualifier}" if qualifier else arn,
                                   f"{day:%Y/%m/%d}/[$LATEST]{ids.hex_token(32)}")


class _PreparedInvocation(Struct, frozen=True):
    """An invocation with its ids drawn: what runs the handler, and what answers once its timeout passes."""

    invocation: Invocation
    invoked_arn: str
    log_stream_name: str

    def context(self) -> LambdaContext:
        """The handler's `context`, its remaining time counted from now."""
        name = self.invocation.function_name
        return LambdaContext(function_name=name, function_version="$LATEST", invoked_function_arn=self.invoked_arn,
                             memory_limit_in_mb=128, aws_request_id=self.invocation.request_id,
                             log_group_name=f"/aws/lambda/{name}", log_stream_name=self.log_stream_name,
                             timeout_seconds=self.invocation.timeout_seconds)

    def runner(self, handler: Handler, event_text: Callable[[], str], *, heard: bool = True) -> Callable[[], Any]:
        """Runs the handler on the calling thread, its event decoded from `event_text()` (written there,
        not on the engine's thread); unless `heard`, its failure is dropped (an `Event` invocation)."""
        def run() -> Any:
            try:
                return lambda_runtime.run(handler, event_text(), self.context(), self.invocation)
            except StatesError:
                if heard:
                    raise
                return None
        return run

    def timeout(self) -> tuple[float, Callable[[], Any]]:
        """The function's timeout, with the answer once it passes: Lambda's Sandbox.Timedout."""
        def timed_out() -> Any:
            raise lambda_runtime.timed_out(self.invocation)
        return self.invocation.timeout_seconds, timed_out


def invoke_response(payload: Any, request: TaskRequest, kind: str = REQUEST_RESPONSE,
                    ids: Randomness | None = None) -> dict[str, Any]:
    """The result of `arn:aws:states:::lambda:invoke`: Lambda's Invoke response as the AWS SDK for Java shapes it.

    With `LogType: Tail` Lambda also answers the tail of the invocation's log, base64-encoded, as the
    `LogResult` member and the `X-Amz-Log-Result` header (Lambda API reference, Invoke). An `Event`
    or `DryRun` invocation (`kind`) answers no body, so no payload, version or log."""
    from email.utils import format_datetime  # (email's package, with socket, on the first Lambda call)

    ids = ids or request.randomness()
    request_id = ids.uuid()
    ran = kind == REQUEST_RESPONSE
    # the Python runtime's own serialisation, default spacing
    length = str(len(json.dumps(payload).encode())) if ran else "0"
    date = format_datetime(request.now, usegmt=True) if request.now else ""
    trace_id = f"Root=1-{ids.hex_token(8)}-{ids.hex_token(24)}"
    headers = {
        "Connection": "keep-alive",
        "Content-Length": length,
        "Content-Type": "application/json",
        "Date": date,
        **({"X-Amz-Executed-Version": "$LATEST"} if ran else {}),
        "x-amzn-Remapped-Content-Length": "0",
        "x-amzn-RequestId": request_id,
        "X-Amzn-Trace-Id": trace_id,
    }
    tail: dict[str, str] = {}
    if ran and _wants_tail(request.payload):
        tail["LogResult"] = headers["X-Amz-Log-Result"] = _log_tail(request_id)
    return {
        **({"ExecutedVersion": "$LATEST"} if ran else {}),
        **tail,
        "Payload": payload,
        "SdkHttpMetadata": {
            "AllHttpHeaders": {key: [value] for key, value in headers.items()},
            "HttpHeaders": headers,
            "HttpStatusCode": STATUS_CODES[kind],
        },
        "SdkResponseMetadata": {"RequestId": request_id},
        "StatusCode": STATUS_CODES[kind],
    }


def _wants_tail(params: Any) -> bool:
    return isinstance(params, dict) and params.get("LogType") == _LOG_TAIL


def _log_tail(request_id: str) -> str:
    """The lines the Lambda runtime logs for every invocation (what a handler prints is not captured)."""
    log = (f"START RequestId: {request_id} Version: $LATEST\n"
           f"END RequestId: {request_id}\n"
           f"REPORT RequestId: {request_id}\tDuration: 1.00 ms\tBilled Duration: 1 ms\t"
           f"Memory Size: 128 MB\tMax Memory Used: 128 MB\t\n")
    return base64.b64encode(log.encode()[-_LOG_TAIL_BYTES:]).decode("ascii")
