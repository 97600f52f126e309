"""Run state machines from Python and read how they ended, with no server and no boto3.

    from sfn_emulator import run_definition

    result = run_definition("Greeting.asl.json", {"name": "Ada"}, functions={"greet": greet})
    result.assert_succeeded()
    assert result.visited_states == ["Greet", "Done"]

`ExecutionResult` (execution_result.py) is also what the pytest plugin's `sfn_emulator.run(...)`
returns. `ExecutionRunner` does the creating, starting and waiting through either the in-process
control plane or boto3.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, Sequence

import msgspec

from sfn_emulator.config import Settings
from sfn_emulator.protocol.definition_files import default_machine_name, read_definition_file
from sfn_emulator.results.execution_result import RUNNING, ExecutionResult
from sfn_emulator.process.randomness import Randomness, process_seed

if TYPE_CHECKING:
    from sfn_emulator.runtime import Emulator

STANDARD = "STANDARD"
EXPRESS = "EXPRESS"
DEFAULT_TIMEOUT = 60.0  # wall seconds to wait for an execution before returning it RUNNING
_POLL_INTERVAL = 0.01  # seconds between DescribeExecution calls when the clock runs in real time
_HISTORY_PAGE = 1000  # GetExecutionHistory's largest page

Definition = Mapping[str, Any] | str | Path


class StepFunctionsApi(Protocol):
    """The operations the runner uses, as a boto3 `stepfunctions` client or `StepFunctionsService` offer them."""

    def create_state_machine(self, **params: Any) -> Any: ...

    def describe_state_machine(self, **params: Any) -> Any: ...

    def start_execution(self, **params: Any) -> Any: ...

    def start_sync_execution(self, **params: Any) -> Any: ...

    def describe_execution(self, **params: Any) -> Any: ...

    def get_execution_history(self, **params: Any) -> Any: ...


class ClockControl(Protocol):
    """What waiting needs from a clock: its mode, and a way to let everything runnable run."""

    @property
    def mode(self) -> str: ...

    def run_until_idle(self, timeout: float | None = None) -> bool: ...


class ExecutionRunner:
    """Creates state machines, runs executions and waits for them, through a Step Functions API.

    Waiting: unless the clock runs in real time, the runner lets the emulator run until nothing
    can move by itself, then reads the execution: it has ended, or it waits for someone (a task
    token, an activity worker, a manual clock). In real time it polls until the execution ends.
    Either way it gives up after `timeout` wall seconds and returns the execution RUNNING.
    """

    def __init__(self, api: StepFunctionsApi, clock: ClockControl, *, role_arn: str,
                 base_dir: Path | None = None,
                 read_history: Callable[[str], Sequence[Mapping[str, Any]]] | None = None,
                 ids: Randomness | None = None) -> None:
        self.api = api
        self.clock = clock
        self.role_arn = role_arn
        self.base_dir = base_dir  # where relative definition paths are looked up (default: the cwd)
        # An execution's whole history in one read, where the API is in-process; else it is paged.
        self.read_history = read_history
        # Where the names of unnamed machines come from: the emulator's seed in process, so a seeded run repeats.
        self.ids = ids or Randomness(process_seed(None))

    def create_state_machine(self, definition: Definition, *, name: str | None = None, type: str = STANDARD) -> str:
        """The ARN of a new state machine (or of the same one, created again with the same definition)."""
        text, default_name = load_definition(definition, self.base_dir, self.ids)
        return self.create_state_machine_from_json(text, name=name or default_name, type=type)

    def create_state_machine_from_json(self, definition_json: str, *, name: str, type: str = STANDARD) -> str:
        """Like `create_state_machine`, with the definition as JSON text passed on untouched, so
        that whatever is wrong with it is what CreateStateMachine says."""
        answer = self.api.create_state_machine(name=name, definition=definition_json, roleArn=self.role_arn, type=type)
        return str(answer["stateMachineArn"])

    def run(self, definition: Definition, input: Any = None, *, name: str | None = None,
            test_case: str | None = None, type: str | None = None,
            timeout: float | None = DEFAULT_TIMEOUT) -> ExecutionResult:
        """Run `definition` (a dict, JSON text, a file, or the ARN of an existing state machine)
        once with `input` (a JSON value; default {}) and return the execution.

        `name` names the state machine (default: the file name up to its first dot, or a unique
        name); `test_case` runs it under that test case of the mock configuration; `type` EXPRESS
        runs it with StartSyncExecution (no history).
        """
        if isinstance(definition, str) and definition.startswith("arn:"):
            machine_arn = definition
        else:
            type = type or STANDARD
            machine_arn = self.create_state_machine(definition, name=name, type=type)
        return self.execute(machine_arn, json.dumps({} if input is None else input), test_case=test_case, type=type,
                            timeout=timeout)

    def execute(self, machine_arn: str, input_json: str, *, test_case: str | None = None, type: str | None = None,
                timeout: float | None = DEFAULT_TIMEOUT) -> ExecutionResult:
        """Run the state machine `machine_arn` once with `input_json`, JSON text passed on untouched
        (what is wrong with it is what StartExecution says), and return the execution.

        `type` None asks the state machine for its type.
        """
        if type is None:
            type = self.api.describe_state_machine(stateMachineArn=machine_arn)["type"]
        if type == EXPRESS:
            target = f"{machine_arn}#{test_case}" if test_case else machine_arn
            definition = self.api.describe_state_machine(stateMachineArn=machine_arn)["definition"]
            answer = self.api.start_sync_execution(stateMachineArn=target, input=input_json)
            return ExecutionResult.from_api(answer, definition=definition)
        execution_arn = self.start(machine_arn, input_json, test_case=test_case)
        return self.wait(execution_arn, timeout=timeout)

    def start(self, machine_arn: str, input_json: str, *, test_case: str | None = None) -> str:
        """Start a STANDARD execution of `machine_arn` (under `test_case`) and return its ARN at once."""
        target = f"{machine_arn}#{test_case}" if test_case else machine_arn
        return str(self.api.start_execution(stateMachineArn=target, input=input_json)["executionArn"])

    def wait(self, execution_arn: str, *, timeout: float | None = DEFAULT_TIMEOUT) -> ExecutionResult:
        """The execution once it has ended or cannot move by itself (see the class docstring)."""
        if self.clock.mode != "real":
            self.clock.run_until_idle(timeout)
        else:
            deadline = None if timeout is None else time.monotonic() + timeout
            while self._status(execution_arn) == RUNNING and (deadline is None or time.monotonic() < deadline):
                time.sleep(_POLL_INTERVAL)
        return self.result(execution_arn)

    def result(self, execution_arn: str) -> ExecutionResult:
        """The execution as it stands now, with its whole history."""
        description = self.api.describe_execution(executionArn=execution_arn)
        definition = self.api.describe_state_machine_for_execution(executionArn=execution_arn)["definition"]
        if self.read_history is not None:
            return ExecutionResult.from_api(description, self.read_history(execution_arn), definition)
        events: list[dict[str, Any]] = []
        token: str | None = None
        while True:
            page_token = {"nextToken": token} if token else {}
            page = self.api.get_execution_history(executionArn=execution_arn, maxResults=_HISTORY_PAGE, **page_token)
            events += page["events"]
            token = page.get("nextToken")
            if not token:
                return ExecutionResult.from_api(description, events, definition)

    def _status(self, execution_arn: str) -> str:
        return str(self.api.describe_execution(executionArn=execution_arn)["status"])


def load_definition(definition: Definition, base_dir: Path | None = None,
                    ids: Randomness | None = None) -> tuple[str, str]:
    """(definition JSON text, a state machine name for it) from a dict, JSON text or a JSON/YAML file.

    A file's name is its file name up to the first dot (`OrderFlow.asl.json` -> `OrderFlow`), the
    name a mock configuration's `StateMachines` would use; other definitions get a unique name
    (drawn from `ids`, else from a fresh source).
    Raises `UnreadableDefinition` for a file it cannot read as JSON or YAML.
    """
    if isinstance(definition, Mapping):
        return json.dumps(definition), _unique_name(ids)
    if isinstance(definition, str) and definition.lstrip().startswith("{"):
        return definition, _unique_name(ids)
    path = Path(definition)
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    from sfn_emulator.dialects import anchored

    return anchored(read_definition_file(path), path.resolve().parent), default_machine_name(path)


def run_definition(
    definition: Definition,
    input: Any = None,
    *,
    functions: Mapping[str, Callable[[Any, Any], Any]] | None = None,
    mock_config: str | Path | Mapping[str, Any] | None = None,
    test_case: str | None = None,
    name: str | None = None,
    type: str = STANDARD,
    settings: Settings | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> ExecutionResult:
    """Run `definition` once with `input` on a fresh in-process emulator and return the execution.

    `functions` maps Lambda function names or ARNs to Python callables `handler(event, context)`;
    `mock_config` is a mock configuration (AWS Step Functions Local's format) as a file or a dict,
    used by executions run with `test_case`; `settings` sets the clock, account and region
    (default: `Settings()`, clock auto). See `ExecutionRunner.run` for the rest.
    """
    import tempfile

    from sfn_emulator.runtime import Emulator

    settings = settings or Settings()
    with tempfile.TemporaryDirectory(prefix="sfn-emulator-") as scratch:
        shown_as = None
        if isinstance(mock_config, Mapping):
            mock_config, shown_as = write_mock_config(mock_config, Path(scratch)), MOCK_CONFIG_DICT
        if mock_config is not None:
            settings = msgspec.structs.replace(settings, mock_config=None)
        with Emulator(settings, function_hint="pass `functions={name: handler}` to run_definition") as instance:
            if mock_config is not None:
                instance.use_mock_config(mock_config, shown_as=shown_as)
            instance.functions.update(functions or {})
            runner = in_process_runner(instance, role_arn=f"arn:aws:iam::{settings.account}:role/sfn-emulator")
            return runner.run(definition, input, name=name, test_case=test_case, type=type, timeout=timeout)


def in_process_runner(instance: Emulator, *, role_arn: str) -> ExecutionRunner:
    """A runner on an emulator's own control plane, reading each history whole rather than by pages."""
    service = instance.service
    return ExecutionRunner(service, instance.clock, role_arn=role_arn, ids=Randomness(f"{instance.seed}:runner"),
                           read_history=lambda execution_arn: service.execution_events(executionArn=execution_arn))


MOCK_CONFIG_DICT = "given as a dict"  # how messages name a mock configuration given as a dict: "mock config given as a dict: ..."


def write_mock_config(config: Mapping[str, Any], directory: Path) -> Path:
    """Write a mock configuration given as a dict to a new file in `directory` (mocks are read from files)."""
    path = directory / f"mock-config-{os.urandom(4).hex()}.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def _unique_name(ids: Randomness | None) -> str:
    return f"machine-{(ids or Randomness(process_seed(None))).hex_token(12)}"
