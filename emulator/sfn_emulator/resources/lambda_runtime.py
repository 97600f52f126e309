"""One invocation of a Python callable, run as AWS Lambda runs a Python function.

What Lambda guarantees its function, and so what a callable can rely on here:
- the event is the state's data serialised and parsed again (a fresh copy the handler may change);
- the result must serialise as strict JSON, or the invocation fails with `Runtime.MarshalError`
  (the Python runtime's encoder, simplejson, refuses NaN and Infinity, in its own words);
- an exception is the function's error, reported as the Python runtime does (`errorType` = class
  name); the runtime only catches `Exception`, so `SystemExit`, `KeyboardInterrupt` and any other
  `BaseException` end its process, which Lambda reports as `Runtime.ExitError`;
- the function has a timeout of wall time: past it the invocation fails with `Sandbox.Timedout`.
  Lambda bounds the real running time of the code, and the callable's run takes real time whatever
  the virtual clock does (the manual clock stands still meanwhile). Unless told the real function's
  timeout, the emulator cannot know it, and must not fail a task AWS would have let finish: AWS's
  recorded runs have functions sleep 60 s inside a state's TimeoutSeconds and end in States.Timeout,
  which Lambda's 3 s default for new functions would turn into Sandbox.Timedout. So the default is
  Lambda's largest timeout, 900 s.

The handler runs on the thread that calls it: a Step Functions task's worker thread, one per
call, whose wall-time deadline the engine keeps (a hung callable is abandoned at its timeout and
holds nothing another task needs; its late answer is dropped). Callers without an engine (Amazon
SWF, EventBridge) bound it with `run_within_timeout`.

Error causes are the Invoke payload as its author wrote it: the Python runtime's own reports with
`json.dumps` spacing, Lambda's service errors (exit, timeout) compact, as its Go code writes them;
the `lambda:invoke` integration passes every payload on compact (`compact=True`).
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from msgspec import Struct

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.resources.callable_time import clock_time

Handler = Callable[[Any, Any], Any]

MAX_FUNCTION_TIMEOUT = 900.0  # seconds: Lambda's largest function timeout
DEFAULT_FUNCTION_TIMEOUT = MAX_FUNCTION_TIMEOUT  # see the module docstring


class Invocation(Struct, frozen=True):
    """What one call of a handler needs besides the handler: who it is and how it is bounded."""

    function_name: str
    request_id: str
    timeout_seconds: float
    now: Callable[[], datetime] | None  # the clock the callable reads; None: real time
    compact: bool  # the error causes' spacing: see the module docstring


def check_timeout(value: Any, what: str) -> float:
    """A function timeout in seconds: a number above 0 and at most Lambda's 900."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_FUNCTION_TIMEOUT:
        raise ValueError(f"{what} must be a number of seconds above 0 and at most {MAX_FUNCTION_TIMEOUT:g}, "
                         f"not {value!r}")
    return float(value)


def run(handler: Handler, event_text: str, context: Any, invocation: Invocation) -> Any:
    """Run `handler(event, context)` on the calling thread, `event` decoded from `event_text` (the
    fresh copy Lambda's runtime gives), and return its JSON result, or raise its failure as a
    `StatesError` in the shape Step Functions reports for a Lambda function. The function's timeout
    is its caller's to keep: the Step Functions engine keeps it as the call's `WallDeadline`, the
    callers without an engine run this through `run_within_timeout`."""
    event = json.loads(event_text)
    try:
        if invocation.now is not None:
            with clock_time(invocation.now):
                result = handler(event, context)
        else:
            result = handler(event, context)
    except Exception as exc:
        raise handler_error(exc, invocation.request_id, compact=invocation.compact) from None
    except BaseException as failure:  # noqa: BLE001 - every way a handler can end is the invocation's outcome
        raise service_error("Runtime.ExitError", exit_reason(failure), invocation) from None
    return marshal(result, invocation)


def run_within_timeout(handler: Handler, event_text: str, context: Any, invocation: Invocation) -> Any:
    """`run` for a caller with no engine to keep the function's timeout (Amazon SWF's Lambda tasks,
    EventBridge targets): on a daemon thread of its own, abandoned at the timeout, which then
    raises `timed_out`. A hung callable holds nothing another call needs and never keeps the
    process from exiting."""
    outcome: list[tuple[Any, Exception | None]] = []
    finished = threading.Event()

    def work() -> None:
        try:
            outcome.append((run(handler, event_text, context, invocation), None))
        except Exception as failure:  # the function's failure, or a result too deep to marshal: the caller's
            outcome.append((None, failure))
        finally:
            finished.set()

    threading.Thread(target=work, name=f"sfn-lambda-{invocation.function_name}", daemon=True).start()
    if not finished.wait(invocation.timeout_seconds):
        raise timed_out(invocation)
    result, failure = outcome[0]
    if failure is not None:
        raise failure
    return result


def timed_out(invocation: Invocation) -> StatesError:
    """What Lambda reports for an invocation its function's timeout ended."""
    return service_error("Sandbox.Timedout", f"Task timed out after {invocation.timeout_seconds:.2f} seconds",
                         invocation)


def exit_reason(failure: BaseException) -> str:
    """How Lambda describes the end of a Python process that `failure` escaped from: the exit
    status CPython sets (`sys.exit(n)`: n; an uncaught exception or a non-integer exit code: 1),
    and for KeyboardInterrupt the SIGINT CPython ends itself with."""
    if isinstance(failure, KeyboardInterrupt):
        return "Runtime exited with error: signal: interrupt"
    status = 1
    if isinstance(failure, SystemExit):
        code = failure.code
        status = 0 if code is None else code % 256 if isinstance(code, int) else 1
    if status == 0:
        return "Runtime exited without providing a reason"
    return f"Runtime exited with error: exit status {status}"


def marshal(result: Any, invocation: Invocation) -> Any:
    """The result as the Python runtime serialises it, parsed back: strict JSON or MarshalError."""
    try:
        return json.loads(json.dumps(result, allow_nan=False))
    except (TypeError, ValueError) as exc:
        problem = _out_of_range(result)
        message = f"Unable to marshal response: {problem or exc}"
        report = {"errorMessage": message, "errorType": "Runtime.MarshalError", "requestId": invocation.request_id,
                  "stackTrace": []}
        raise StatesError("Runtime.MarshalError", _dump(report, invocation.compact)) from None


def _out_of_range(value: Any) -> str | None:
    """The runtime's (simplejson's) words for the first NaN or infinity in `value`, if any."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"Out of range float values are not JSON compliant: {value!r}"
    children = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    for child in children:
        found = _out_of_range(child)
        if found:
            return found
    return None


def handler_error(exc: BaseException, request_id: str, *, compact: bool) -> StatesError:
    """What the Lambda Python runtime reports for an exception: Error = class name, Cause = its JSON report."""
    import traceback  # on the first failing handler

    frames = traceback.extract_tb(exc.__traceback__)[1:]  # drop the runtime's own frame (our call site)
    error_type = type(exc).__name__
    report = {"errorMessage": str(exc), "errorType": error_type, "requestId": request_id,
              "stackTrace": traceback.format_list(frames)}
    return StatesError(error_type, _dump(report, compact))


def service_error(error_type: str, reason: str, invocation: Invocation) -> StatesError:
    """An error Lambda's service reports for the invocation (not the runtime): compact, type first."""
    report = {"errorType": error_type, "errorMessage": f"RequestId: {invocation.request_id} Error: {reason}"}
    return StatesError(error_type, _dump(report, True))


def _dump(report: dict[str, Any], compact: bool) -> str:
    return json.dumps(report, separators=(",", ":")) if compact else json.dumps(report)
