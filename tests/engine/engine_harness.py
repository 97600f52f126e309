"""Run state machines in-process, with no HTTP: a virtual clock, an `Engine`, Lambda functions as
named Python behaviours, and activity workers in threads.

`Harness` owns one clock and one engine; `start` builds an `Execution` record as the control
plane would and hands it to the engine. `matches` compares JSON values with placeholders
(`<uuid>`, `<trace-id>`) for the few strings AWS generates afresh on every run, and
`<any>` for a part of a text the recording does not show.
"""

from __future__ import annotations

import json
import linecache
import re
import threading
import types
from typing import Any, Callable, Mapping

from sfn_emulator.asl.parser import parse_definition
from sfn_emulator.clock.virtual_clock import Clock, parse_time
from sfn_emulator.engine import Engine, Execution
from sfn_emulator.resources.aws_services import AwsServiceIntegrations
from sfn_emulator.resources.base import TaskResources
from sfn_emulator.resources.lambda_functions import LambdaFunctions

ACCOUNT = "111111111111"  # the account of AWS's recordings, so recorded ARNs resolve unchanged
REGION = "us-east-1"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/engine-tests"
STATE_MACHINE_NAME = "MachineUnderTest"
STATE_MACHINE_ARN = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:{STATE_MACHINE_NAME}"
DEFAULT_START = "2024-01-01T00:00:00Z"
NO_WORKER = "no_worker"  # an activity that exists, with no worker started for it
DELETED = "deleted"  # an activity that does not exist (as is any activity not named to the harness)
WAIT_LIMIT_SECONDS = 10.0  # wall-clock bound on waiting for an execution: a hang fails, it never blocks the suite

Handler = Callable[[Any, Any], Any]

# The recordings show Lambda stack traces from /var/task/handler.py, with the `raise` of the plain
# exception on line 2 and of the custom one on line 9. Compiling the two raising handlers under
# that name, on those lines, makes our runtime report exactly the recorded Cause.
_DEPLOYED_FILE = "/var/task/handler.py"
_DEPLOYED_SOURCE = """\
def handler(event, context):
    raise Exception("Some exception was raised.")
raise_exception = handler


class CustomException(Exception):
    pass
def handler(event, context):
    raise CustomException()
"""
linecache.cache[_DEPLOYED_FILE] = (len(_DEPLOYED_SOURCE), None, _DEPLOYED_SOURCE.splitlines(True), _DEPLOYED_FILE)
_deployed: dict[str, Any] = {"__name__": "deployed_handler",
                             "__loader__": types.SimpleNamespace(get_source=lambda name: _DEPLOYED_SOURCE)}
exec(compile(_DEPLOYED_SOURCE, _DEPLOYED_FILE, "exec"), _deployed)  # noqa: S102 - the fixed source above


def _identity(event: Any, context: Any) -> Any:
    return event


def _constant_hello_world(event: Any, context: Any) -> Any:
    return {"Return": "HelloWorld"}


def _large_output_257kb(event: Any, context: Any) -> Any:
    return "a" * (257 * 1024)


def _fail_until_third_attempt() -> Handler:
    """Raises `Exception` on its first two calls, then returns its event (one counter per execution)."""
    calls = 0
    lock = threading.Lock()

    def handler(event: Any, context: Any) -> Any:
        nonlocal calls
        with lock:
            calls += 1
            attempt = calls
        if attempt < 3:
            raise Exception(f"attempt {attempt} failed")
        return event

    return handler


def _alternate_custom_and_plain_exception() -> Handler:
    """Raises `CustomException` on odd calls and `Exception` on even ones (one counter per execution)."""
    calls = 0
    lock = threading.Lock()

    def handler(event: Any, context: Any) -> Any:
        nonlocal calls
        with lock:
            calls += 1
            attempt = calls
        raising = _deployed["handler"] if attempt % 2 else _deployed["raise_exception"]
        return raising(event, context)

    return handler


STATELESS_BEHAVIOURS: dict[str, Handler] = {
    "identity": _identity,
    "constant_hello_world": _constant_hello_world,
    "raise_exception": _deployed["raise_exception"],
    "raise_custom_exception": _deployed["handler"],
    "large_output_257kb": _large_output_257kb,
}


# -- comparing JSON with placeholders ------------------------------------------------------------

PLACEHOLDERS = {
    "<uuid>": "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    "<trace-id>": "Root=1-[0-9a-f]{8}-[0-9a-f]{24}",
    "<any>": ".*?",  # a part of a text the recording does not pin down
}
_PLACEHOLDER = re.compile("|".join(re.escape(token) for token in PLACEHOLDERS))


def matches(expected: Any, actual: Any) -> bool:
    """JSON equality, where a placeholder inside an expected string stands for a generated value."""
    if isinstance(expected, str):
        if not isinstance(actual, str):
            return False
        if not _PLACEHOLDER.search(expected):
            return expected == actual
        pattern = "".join(PLACEHOLDERS.get(part, re.escape(part)) for part in re.split(f"({_PLACEHOLDER.pattern})", expected))
        return re.fullmatch(pattern, actual, re.DOTALL) is not None
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and expected.keys() == actual.keys()
                and all(matches(value, actual[key]) for key, value in expected.items()))
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(expected) == len(actual)
                and all(matches(e, a) for e, a in zip(expected, actual)))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    return expected == actual


# -- the harness -----------------------------------------------------------------------------------

class _Activities:
    """The scenario's activities as the engine's directory: every one exists but those marked deleted."""

    def __init__(self, behaviours: Mapping[str, str]) -> None:
        self._behaviours = behaviours

    def exists_for(self, activity_arn: str, execution_arn: str) -> bool:
        return self._behaviours.get(activity_arn, DELETED) != DELETED


class Harness:
    """One virtual clock and one engine; close it (or use `with`) to stop the engine and free workers."""

    def __init__(self, *, mode: str = "auto", start: str = DEFAULT_START, scale: float = 1.0,
                 functions: Mapping[str, str] | None = None, activities: Mapping[str, str] | None = None,
                 s3: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self.clock = Clock(mode, start=parse_time(start), scale=scale)
        self.functions = LambdaFunctions()
        resources: list[Any] = [self.functions]
        self._buckets = dict(s3 or {})
        if self._buckets:  # S3 objects (bucket -> key -> text), served by moto as AWS integrations are
            self.aws = AwsServiceIntegrations()
            resources.append(self.aws)
            self._put_objects()
        activities = dict(activities or {})
        self.engine = Engine(self.clock, TaskResources(resources), activities=_Activities(activities))
        self.released = threading.Event()  # lets `block` handlers return once the test is done
        self._count = 0
        self._workers: list[threading.Thread] = []
        for name, behaviour in (functions or {}).items():
            self.functions.register(name, self.behaviour(behaviour))
        for arn, behaviour in activities.items():
            if behaviour not in (DELETED, NO_WORKER):
                self.start_activity_worker(arn, ACTIVITY_WORKERS[behaviour])

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.released.set()
        self.engine.close()
        for worker in self._workers:
            worker.join(timeout=WAIT_LIMIT_SECONDS)
        self._delete_buckets()

    # -- S3 objects ------------------------------------------------------------------------------
    def s3_client(self) -> Any:
        return self.aws.backends.client("s3", account=ACCOUNT, region=REGION)

    def _put_objects(self) -> None:
        client = self.s3_client()
        for bucket, objects in self._buckets.items():
            client.create_bucket(Bucket=bucket)
            for key, text in objects.items():
                client.put_object(Bucket=bucket, Key=key, Body=text.encode("utf-8"))

    def _delete_buckets(self) -> None:
        """Moto's backends live as long as the process: leave no bucket behind for the next case."""
        if not self._buckets:
            return
        client = self.s3_client()
        for bucket in self._buckets:
            for listed in client.list_objects_v2(Bucket=bucket).get("Contents", []):
                client.delete_object(Bucket=bucket, Key=listed["Key"])
            client.delete_bucket(Bucket=bucket)

    # -- Lambda behaviours ---------------------------------------------------------------------
    def behaviour(self, name: str) -> Handler:
        """The handler for a named behaviour; a few need the engine or the harness."""
        if name in STATELESS_BEHAVIOURS:
            return STATELESS_BEHAVIOURS[name]
        if name == "fail_until_third_attempt":
            return _fail_until_third_attempt()
        if name == "alternate_custom_and_plain_exception":
            return _alternate_custom_and_plain_exception()
        if name == "block":
            return self._block
        if name == "send_task_success":
            return self._send_task_success
        if name == "send_task_failure":
            return self._send_task_failure
        raise KeyError(f"unknown Lambda behaviour {name!r}")

    def _block(self, event: Any, context: Any) -> Any:
        """A callable slower than any task timeout: it returns only when the test is over."""
        self.released.wait(WAIT_LIMIT_SECONDS)
        return event

    def _send_task_success(self, event: Any, context: Any) -> Any:
        """A function that answers its own callback: SendTaskSuccess(event.TaskToken, event.Output)."""
        self.engine.send_task_success(event["TaskToken"], event["Output"])
        return {"sent": True}

    def _send_task_failure(self, event: Any, context: Any) -> Any:
        self.engine.send_task_failure(event["TaskToken"], event.get("Error"), event.get("Cause"))
        return {"sent": True}

    # -- activity workers ------------------------------------------------------------------------
    def start_activity_worker(self, arn: str, answer: Callable[[Engine, str, str], None]) -> None:
        """A worker thread: GetActivityTask (as "worker") until the engine closes, answering each task."""

        def work() -> None:
            while not self.released.is_set():
                task = self.engine.poll_activity(arn, "worker", 5)
                if task is not None:
                    answer(self.engine, task.token, task.input)

        worker = threading.Thread(target=work, name=f"activity-worker-{len(self._workers)}", daemon=True)
        self._workers.append(worker)
        worker.start()

    # -- executions ------------------------------------------------------------------------------
    def execution(self, definition: Mapping[str, Any] | str, execution_input: Any = None, *,
                  name: str | None = None, state_machine_type: str = "STANDARD") -> Execution:
        """An Execution record as the control plane creates it (not started)."""
        text = definition if isinstance(definition, str) else json.dumps(definition)
        self._count += 1
        name = name or f"execution-{self._count}"
        return Execution(
            arn=f"arn:aws:states:{REGION}:{ACCOUNT}:execution:{STATE_MACHINE_NAME}:{name}",
            name=name,
            state_machine_arn=STATE_MACHINE_ARN,
            state_machine_name=STATE_MACHINE_NAME,
            machine=parse_definition(text, state_machine_type=state_machine_type),
            definition=text,
            input=json.dumps({} if execution_input is None else execution_input),
            start_date=self.clock.now(),
            account=ACCOUNT,
            region=REGION,
            role_arn=ROLE_ARN,
            type=state_machine_type,
        )

    def start(self, definition: Mapping[str, Any] | str, execution_input: Any = None, **kwargs: Any) -> Execution:
        execution = self.execution(definition, execution_input, **kwargs)
        self.engine.start(execution)
        return execution

    def finish(self, execution: Execution) -> Execution:
        """Wait (bounded) until the execution ends; a hang is a test failure, not a stuck suite."""
        assert self.engine.wait(execution, WAIT_LIMIT_SECONDS), f"{execution.name} still {execution.status}"
        return execution

    def run(self, definition: Mapping[str, Any] | str, execution_input: Any = None, **kwargs: Any) -> Execution:
        return self.finish(self.start(definition, execution_input, **kwargs))

    def settle(self) -> None:
        """Let everything runnable run (bounded), as `Clock.advance` does after moving time."""
        assert self.engine.run_until_idle(WAIT_LIMIT_SECONDS), "the engine did not become idle"


# -- what activity workers do with a task (the behaviours of AWS's recorded activity consumers) ----

def _succeed_with_input(engine: Engine, token: str, task_input: str) -> None:
    engine.send_task_success(token, json.loads(task_input))


def _fail_with_input_as_cause(engine: Engine, token: str, task_input: str) -> None:
    engine.send_task_failure(token, "Programmatic Error", task_input)


def _heartbeat_then_succeed(engine: Engine, token: str, task_input: str) -> None:
    engine.send_task_heartbeat(token)
    engine.send_task_success(token, json.loads(task_input))


ACTIVITY_WORKERS: dict[str, Callable[[Engine, str, str], None]] = {
    "succeed_with_input": _succeed_with_input,
    "fail_with_input_as_cause": _fail_with_input_as_cause,
    "heartbeat_then_succeed": _heartbeat_then_succeed,
}


def event_types(execution: Execution) -> list[str]:
    return [event["type"] for event in execution.history]
