"""`sfn-emulator run` and `sfn-emulator validate`: one definition, from a file or standard input.

`validate` asks the control plane's ValidateStateMachineDefinition, so it reports exactly what the
API reports. `run` creates the machine on an in-process emulator, starts one execution, waits for
it and prints how it ended and which states it went through, read from its history.

Exit codes: 0 when the definition is valid / the execution SUCCEEDED; 1 when it has errors / the
execution FAILED, TIMED_OUT or was ABORTED (or did not finish within `--timeout`); 2 when the
command could not do its job (unreadable file, a definition the API refuses, bad options).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import yaml

from emulator.config import Settings, add_arguments

if TYPE_CHECKING:
    from emulator.engine.execution import Execution
    from emulator.runtime import Emulator

EXIT_OK = 0
EXIT_NOT_OK = 1
EXIT_UNUSABLE = 2

# The settings that mean something for one execution run in-process (no host or port: nothing is served).
RUN_SETTINGS = ("account", "region", "clock", "clock_start", "wait_time_scale", "functions", "mock_config",
                "log_level")
_YAML_SUFFIXES = (".yaml", ".yml")
_HISTORY_PAGE = 1000  # GetExecutionHistory's largest page


class UnusableInput(Exception):
    """A definition or input the command cannot even read; the message says which and why."""


class _JsonShapedYamlLoader(yaml.SafeLoader):
    """YAML read as the JSON it stands for: timestamps stay strings, as they would in a JSON definition."""


_JsonShapedYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def add_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `run` and `validate` on the `sfn-emulator` parser."""
    run = commands.add_parser(
        "run",
        help="run a definition once, in-process, and print how it ended",
        description="Create the state machine on an in-process emulator, run one execution and print its "
        "status, output or error and cause, and the states it visited. Exit code: 0 SUCCEEDED; "
        "1 FAILED, TIMED_OUT, ABORTED or still running after --timeout; 2 unusable definition or options.",
    )
    run.add_argument("definition", metavar="DEFINITION", help="ASL file (JSON or YAML), or - for standard input")
    run.add_argument("--input", default="{}", metavar="JSON",
                     help="execution input: JSON text, or @FILE to read it from a file (default {})")
    run.add_argument("--name", metavar="NAME",
                     help="state machine name (default: the file name up to its first dot; 'run' for stdin)")
    run.add_argument("--test-case", metavar="CASE",
                     help="run under this test case of the mock configuration (as stateMachineArn#CASE)")
    run.add_argument("--timeout", type=float, metavar="SECONDS",
                     help="give up waiting after this many seconds of wall time (default: wait until it ends)")
    run.add_argument("--json", action="store_true", help="print the result as one JSON object")
    add_arguments(run, RUN_SETTINGS)
    run.set_defaults(handler=run_command)

    validate = commands.add_parser(
        "validate",
        help="check a definition as ValidateStateMachineDefinition does",
        description="Print the diagnostics AWS's ValidateStateMachineDefinition reports for a definition, "
        "warnings included. Exit code: 0 valid (warnings allowed), 1 errors, 2 unreadable definition.",
    )
    validate.add_argument("definition", metavar="DEFINITION",
                          help="ASL file (JSON or YAML), or - for standard input")
    validate.add_argument("--type", choices=("STANDARD", "EXPRESS"), default="STANDARD",
                          help="the state machine type to validate for (default STANDARD)")
    validate.add_argument("--json", action="store_true",
                          help="print ValidateStateMachineDefinition's response as JSON")
    validate.set_defaults(handler=validate_command)


# == reading ========================================================================================

def read_definition(source: str, stdin: TextIO | None = None) -> str:
    """The definition as JSON text. YAML (a *.yaml/*.yml file, or text not starting with `{`) is
    converted; JSON text is passed on untouched, so that its syntax errors are AWS's diagnostics."""
    if source == "-":
        text, is_yaml_file = (stdin or sys.stdin).read(), False
    else:
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as error:
            raise UnusableInput(f"cannot read the definition {source}: {error}") from None
        is_yaml_file = path.suffix.lower() in _YAML_SUFFIXES
    if not is_yaml_file and text.lstrip().startswith("{"):
        return text
    try:
        value = yaml.load(text, Loader=_JsonShapedYamlLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as error:
        raise UnusableInput(f"{_shown(source)} is neither JSON nor valid YAML: {error}") from None
    try:
        return json.dumps(value)
    except (TypeError, ValueError) as error:  # e.g. a binary scalar: nothing JSON can hold
        raise UnusableInput(f"{_shown(source)} holds a YAML value JSON cannot: {error}") from None


def read_input(argument: str) -> str:
    """`--input`: the JSON text itself, or `@FILE` naming a file that holds it."""
    if not argument.startswith("@"):
        return argument
    try:
        return Path(argument[1:]).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise UnusableInput(f"cannot read the input {argument[1:]}: {error}") from None


def _shown(source: str) -> str:
    return "standard input" if source == "-" else source


def machine_name(source: str, given: str | None) -> str:
    if given is not None:
        return given
    return "run" if source == "-" else Path(source).name.split(".", 1)[0]


# == validate =======================================================================================

def validate_command(settings: Settings, arguments: argparse.Namespace) -> int:
    # Imported here so that `--help` answers without loading the engine.
    from emulator.clock import Clock
    from emulator.engine import Engine
    from emulator.service import StepFunctionsService

    try:
        definition = read_definition(arguments.definition)
    except UnusableInput as error:
        print(f"sfn-emulator: {error}", file=sys.stderr)
        return EXIT_UNUSABLE
    engine = Engine(Clock())
    try:
        response = StepFunctionsService(engine).validate_state_machine_definition(
            definition=definition, type=arguments.type, severity="WARNING"
        )
    finally:
        engine.close()
    if arguments.json:
        print(json.dumps(response, indent=2))
    else:
        print(_diagnostics_text(arguments.definition, response))
    return EXIT_OK if response["result"] == "OK" else EXIT_NOT_OK


def _diagnostics_text(source: str, response: dict[str, Any]) -> str:
    diagnostics = response["diagnostics"]
    errors = sum(1 for diagnostic in diagnostics if diagnostic["severity"] == "ERROR")
    lines = [f"{_shown(source)}: {'valid' if response['result'] == 'OK' else 'invalid'} "
             f"({errors} error(s), {len(diagnostics) - errors} warning(s))"]
    for diagnostic in diagnostics:
        where = f" at {diagnostic['location']}" if "location" in diagnostic else ""
        lines.append(f"  {diagnostic['severity']} {diagnostic['code']}{where}: {diagnostic['message']}")
    if response["truncated"]:
        lines.append("  (more diagnostics not shown)")
    return "\n".join(lines)


# == run ============================================================================================

@dataclass(frozen=True)
class StateVisit:
    name: str
    entered: datetime


@dataclass(frozen=True)
class RunResult:
    """How one execution ended (status RUNNING if it did not end in time), as DescribeExecution and
    GetExecutionHistory tell it."""

    execution_arn: str
    status: str
    start_date: datetime
    stop_date: datetime | None
    output: Any
    error: str | None
    cause: str | None
    states_visited: tuple[StateVisit, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "executionArn": self.execution_arn,
            "status": self.status,
            "startDate": _iso(self.start_date),
            "stopDate": _iso(self.stop_date) if self.stop_date else None,
            "output": self.output,
            "error": self.error,
            "cause": self.cause,
            "statesVisited": [visit.name for visit in self.states_visited],
        }

    def to_text(self) -> str:
        lines = [f"Execution: {self.execution_arn}", f"Status:    {self.status}"]
        if self.status == "SUCCEEDED":
            lines.append(f"Output:    {json.dumps(self.output)}")
        if self.error is not None:
            lines.append(f"Error:     {self.error}")
        if self.cause is not None:
            lines.append(f"Cause:     {self.cause}")
        lines.append("States visited:")
        lines += [f"  {_iso(visit.entered)}  {visit.name}" for visit in self.states_visited]
        return "\n".join(lines)


class _FinishedExecutions:
    """Collects executions as the engine finishes them, for a caller that learns the ARN it waits
    for only after starting it (it may finish before then)."""

    def __init__(self) -> None:
        self._finished: set[str] = set()
        self._condition = threading.Condition()

    def __call__(self, execution: Execution) -> None:
        with self._condition:
            self._finished.add(execution.arn)
            self._condition.notify_all()

    def wait_for(self, arn: str, timeout: float | None) -> bool:
        with self._condition:
            return self._condition.wait_for(lambda: arn in self._finished, timeout)


def run_once(
    instance: Emulator, definition: str, input_text: str, *, name: str, test_case: str | None = None,
    timeout: float | None = None,
) -> RunResult:
    """Create the machine `name` on `instance`, run one execution and describe how it went.

    Raises the control plane's `ApiError` (InvalidDefinition, InvalidName, InvalidExecutionInput...)
    when AWS would refuse the request.
    """
    service = instance.service
    role = f"arn:aws:iam::{instance.settings.account}:role/sfn-emulator-run"
    machine = service.create_state_machine(name=name, definition=definition, roleArn=role)
    target = machine["stateMachineArn"] + (f"#{test_case}" if test_case else "")
    finished = _FinishedExecutions()
    instance.engine.on_finished.append(finished)
    try:
        arn = service.start_execution(stateMachineArn=target, input=input_text)["executionArn"]
        finished.wait_for(arn, timeout)
    finally:
        instance.engine.on_finished.remove(finished)
    described = service.describe_execution(executionArn=arn)
    output = described.get("output")
    return RunResult(
        execution_arn=arn,
        status=described["status"],
        start_date=described["startDate"],
        stop_date=described.get("stopDate"),
        output=json.loads(output) if output is not None else None,
        error=described.get("error"),
        cause=described.get("cause"),
        states_visited=tuple(_states_entered(instance, arn)),
    )


def _states_entered(instance: Emulator, arn: str) -> list[StateVisit]:
    visits: list[StateVisit] = []
    token: str | None = None
    while True:
        page = instance.service.get_execution_history(executionArn=arn, maxResults=_HISTORY_PAGE, nextToken=token)
        visits += [StateVisit(event["stateEnteredEventDetails"]["name"], event["timestamp"])
                   for event in page["events"] if "stateEnteredEventDetails" in event]
        token = page.get("nextToken")
        if token is None:
            return visits


def run_command(settings: Settings, arguments: argparse.Namespace) -> int:
    # Imported here so that `--help` answers without loading the engine.
    from emulator.resources.lambda_functions import FunctionMapError
    from emulator.resources.mocks import MockConfigError
    from emulator.runtime import Emulator
    from emulator.service.errors import ApiError

    if arguments.test_case is not None and settings.mock_config is None:
        print("sfn-emulator: --test-case needs a mock configuration (--mock-config or SFN_MOCK_CONFIG)",
              file=sys.stderr)
        return EXIT_UNUSABLE
    try:
        definition = read_definition(arguments.definition)
        input_text = read_input(arguments.input)
    except UnusableInput as error:
        print(f"sfn-emulator: {error}", file=sys.stderr)
        return EXIT_UNUSABLE
    logging.basicConfig(level=settings.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        instance = Emulator(settings)
    except (FunctionMapError, MockConfigError) as error:
        print(f"sfn-emulator: {error}", file=sys.stderr)
        return EXIT_UNUSABLE
    with instance:
        try:
            result = run_once(instance, definition, input_text, name=machine_name(arguments.definition, arguments.name),
                              test_case=arguments.test_case, timeout=arguments.timeout)
        except ApiError as error:
            print(f"sfn-emulator: {error.code}: {error.message}", file=sys.stderr)
            return EXIT_UNUSABLE
    print(json.dumps(result.to_json(), indent=2) if arguments.json else result.to_text())
    if result.status == "RUNNING":
        print(f"sfn-emulator: the execution was still running after {arguments.timeout:g} s", file=sys.stderr)
    return EXIT_OK if result.status == "SUCCEEDED" else EXIT_NOT_OK


def _iso(moment: datetime) -> str:
    """A clock instant as AWS prints one: UTC, milliseconds, `Z`."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
