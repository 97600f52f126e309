"""Lambda functions as local Python callables: ``handler(event, context)``, run as AWS Lambda's
Python runtime runs them (JSON result, errors shaped like the runtime's)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import threading
import time
import traceback
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any, Callable, Mapping

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.resources.base import TaskRequest, split_function_reference
from sfn_emulator.resources.frozen_time import ClockTime

Handler = Callable[[Any, Any], Any]


@dataclass
class LambdaContext:
    """The `context` argument a Lambda handler receives; the remaining time counts down from the task timeout."""

    function_name: str
    function_version: str
    invoked_function_arn: str
    memory_limit_in_mb: int
    aws_request_id: str
    log_group_name: str
    log_stream_name: str
    _deadline: datetime | None = None
    _now: Callable[[], datetime] | None = None

    def get_remaining_time_in_millis(self) -> int:
        """Milliseconds of clock time left before the task's TimeoutSeconds (Lambda's 15-minute cap without one)."""
        if self._deadline is None or self._now is None:
            return 900_000
        return max(0, int((self._deadline - self._now()).total_seconds() * 1000))


class LambdaFunctions:
    """Registered handlers keyed by function name or full function ARN; a task resource.

    With a clock (`now`), handlers run under freezegun at clock time and their context counts
    down in clock time."""

    def __init__(self, now: Callable[[], datetime] | None = None) -> None:
        self._handlers: dict[str, Handler] = {}
        self._lock = threading.Lock()
        self._now = now
        self._clock_time = ClockTime(now) if now is not None else None

    def register(self, name_or_arn: str, handler: Handler) -> None:
        if not callable(handler):
            raise TypeError(f"the handler for {name_or_arn!r} is not callable")
        with self._lock:
            self._handlers[name_or_arn] = handler

    def function(self, name_or_arn: str) -> Callable[[Handler], Handler]:
        """Decorator form of `register`."""

        def decorate(handler: Handler) -> Handler:
            self.register(name_or_arn, handler)
            return handler

        return decorate

    def unregister(self, name_or_arn: str) -> None:
        with self._lock:
            self._handlers.pop(name_or_arn, None)

    def clear(self) -> None:
        with self._lock:
            self._handlers.clear()

    def update(self, handlers: Mapping[str, Handler]) -> None:
        for key, handler in handlers.items():
            self.register(key, handler)

    def lookup(self, reference: str, region: str, account: str) -> tuple[Handler, str, str | None] | None:
        """The handler for a function reference, with its ARN and qualifier; None when nothing is registered."""
        name, arn, qualifier = split_function_reference(reference, region, account)
        with self._lock:
            for key in (f"{arn}:{qualifier}" if qualifier else None, arn, name):
                if key and key in self._handlers:
                    return self._handlers[key], arn, qualifier
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
        handler, arn, qualifier = found
        if request.resource.kind == "lambda":
            return self._run(handler, request.payload, arn, qualifier, request, compact_errors=False)
        payload = request.payload.get("Payload") if isinstance(request.payload, dict) else None
        if payload is None:
            payload = {}  # an invocation without a payload reaches the handler as an empty object
        elif isinstance(payload, str):
            try:
                payload = json.loads(payload)
            except ValueError:
                pass
        result = self._run(handler, payload, arn, qualifier, request, compact_errors=True)
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

    def _run(self, handler: Handler, event: Any, arn: str, qualifier: str | None, request: TaskRequest, *,
             compact_errors: bool) -> Any:
        request_id = str(uuid.uuid4())
        name = arn.rsplit(":", 1)[-1]
        started = self._now() if self._now else None
        deadline = started + timedelta(seconds=request.timeout_seconds) if started and request.timeout_seconds else None
        context = LambdaContext(
            function_name=name,
            function_version="$LATEST",
            invoked_function_arn=f"{arn}:{qualifier}" if qualifier else arn,
            memory_limit_in_mb=128,
            aws_request_id=request_id,
            log_group_name=f"/aws/lambda/{name}",
            log_stream_name=f"{time.strftime('%Y/%m/%d')}/[$LATEST]{uuid.uuid4().hex}",
            _deadline=deadline,
            _now=self._now,
        )
        try:
            if self._clock_time is not None:
                with self._clock_time.frozen():
                    result = handler(event, context)
            else:
                result = handler(event, context)
        except Exception as exc:  # the handler's failure is the task's failure, as in Lambda's runtime
            raise handler_error(exc, request_id, compact=compact_errors) from None
        try:
            return json.loads(json.dumps(result))
        except (TypeError, ValueError) as exc:
            message = f"Unable to marshal response: {exc}"
            raise StatesError("Runtime.MarshalError", _error_json(message, "Runtime.MarshalError", request_id, [], compact_errors)) from None


def handler_error(exc: BaseException, request_id: str, *, compact: bool) -> StatesError:
    """What the Lambda Python runtime reports for an exception: Error = class name, Cause = its JSON report."""
    frames = traceback.extract_tb(exc.__traceback__)[1:]  # drop the runtime's own frame (our call site)
    error_type = type(exc).__name__
    return StatesError(error_type, _error_json(str(exc), error_type, request_id, traceback.format_list(frames), compact))


def _error_json(message: str, error_type: str, request_id: str, stack: list[str], compact: bool) -> str:
    report = {"errorMessage": message, "errorType": error_type, "requestId": request_id, "stackTrace": stack}
    return json.dumps(report, separators=(",", ":")) if compact else json.dumps(report)


def invoke_response(payload: Any, request: TaskRequest) -> dict[str, Any]:
    """The result of `arn:aws:states:::lambda:invoke`: Lambda's Invoke response as the AWS SDK for Java shapes it."""
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
    return {
        "ExecutedVersion": "$LATEST",
        "Payload": payload,
        "SdkHttpMetadata": {
            "AllHttpHeaders": {key: [value] for key, value in headers.items()},
            "HttpHeaders": headers,
            "HttpStatusCode": 200,
        },
        "SdkResponseMetadata": {"RequestId": request_id},
        "StatusCode": 200,
    }


class FunctionMapError(ValueError):
    """A functions map file that cannot be loaded; the message says which entry and why."""


def load_function_map(path: str | Path) -> dict[str, Handler]:
    """Load a JSON or YAML object {function name or ARN: "pkg.module:callable" | "path/file.py:callable"}."""
    import yaml  # only a functions map file needs it

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise FunctionMapError(f"cannot read the functions map {path}: {exc}") from None
    if not isinstance(data, dict):
        raise FunctionMapError(f"the functions map {path} must be an object of function name or ARN -> 'module:callable'")
    return {str(key): _import_handler(str(target), path.parent, key) for key, target in data.items()}


def _import_handler(target: str, base: Path, key: object) -> Handler:
    module_ref, sep, attribute = target.rpartition(":")
    if not sep or not module_ref or not attribute:
        raise FunctionMapError(f"functions map entry {key!r}: {target!r} is not 'package.module:callable' or 'file.py:callable'")
    try:
        if module_ref.endswith(".py"):
            file = (base / module_ref).resolve()
            module_name = f"sfn_emulator_functions_{abs(hash(str(file)))}"
            module = sys.modules.get(module_name)
            if module is None:
                spec = importlib.util.spec_from_file_location(module_name, file)
                if spec is None or spec.loader is None:
                    raise FunctionMapError(f"functions map entry {key!r}: cannot load {file}")
                module = importlib.util.module_from_spec(spec)
                sys.modules[module_name] = module
                spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_ref)
    except FunctionMapError:
        raise
    except Exception as exc:  # an import error in user code must say which entry broke
        raise FunctionMapError(f"functions map entry {key!r}: cannot import {target!r}: {type(exc).__name__}: {exc}") from None
    handler = getattr(module, attribute, None)
    if handler is None:
        raise FunctionMapError(f"functions map entry {key!r}: {module_ref} has no attribute {attribute!r}")
    if not callable(handler):
        raise FunctionMapError(f"functions map entry {key!r}: {target!r} is not callable")
    return handler
