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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sfn_emulator.cli.callbacks import add_arguments as add_answer_arguments
from sfn_emulator.cli.callbacks import prompt_on_terminal, wait_answering
from sfn_emulator.cli.exits import EXIT_OK, EXIT_NOT_OK, EXIT_UNUSABLE, unusable
from sfn_emulator.cli.stacks import StackProblem, add_stack_arguments, definition_given, stack_machine_arn
from sfn_emulator.clock.virtual_clock import Clock, format_time
from sfn_emulator.config import REMOTE_ENDPOINT_FIELDS, Settings, add_arguments
from sfn_emulator.protocol.definition_files import STDIN, UnreadableDefinition, default_machine_name, source_label

if TYPE_CHECKING:
    from sfn_emulator.results.execution_result import ExecutionResult

DEFAULT_RUN_TIMEOUT = 60.0  # wall seconds `run` waits for someone to answer (the virtual clock skips the rest)

# The settings that mean something for one execution run in-process (no host or port: nothing is served).
RUN_SETTINGS = ("account", "region", "clock", "clock_start", "wait_time_scale", "functions", "mock_config",
                "log_level", "stack_parameters", *REMOTE_ENDPOINT_FIELDS.values())


class UnusableInput(Exception):
    """An `--input` the command cannot even read; the message says which and why."""


def add_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `run` and `validate` on the `sfn-emulator` parser."""
    run = commands.add_parser(
        "run",
        help="run a definition once, in-process, and print how it ended",
        description="Create the state machine on an in-process emulator, run one execution and print its "
        "status, output or error and cause, and the states it visited. Exit code: 0 SUCCEEDED; "
        "1 FAILED, TIMED_OUT, ABORTED or still running after --timeout; 2 unusable definition or options.",
    )
    run.add_argument("definition", metavar="DEFINITION", nargs="?",
                     help="ASL file (JSON or YAML), or - for standard input")
    add_stack_arguments(run)
    run.add_argument("--input", default="{}", metavar="JSON",
                     help="execution input: JSON text, or @FILE to read it from a file (default {})")
    run.add_argument("--name", metavar="NAME",
                     help="state machine name (default: the file name up to its first dot; 'run' for stdin)")
    run.add_argument("--test-case", metavar="CASE",
                     help="run under this test case of the mock configuration (as stateMachineArn#CASE)")
    run.add_argument("--timeout", type=float, default=DEFAULT_RUN_TIMEOUT, metavar="SECONDS",
                     help="give up waiting for the execution to end after this many seconds of wall time "
                          f"(default {DEFAULT_RUN_TIMEOUT:g}); waits (Wait, retries) take no wall time")
    add_answer_arguments(run)
    run.add_argument("--json", action="store_true", help="print the result as one JSON object")
    add_arguments(run, RUN_SETTINGS)
    run.set_defaults(handler=run_command)

    validate = commands.add_parser(
        "validate",
        help="check a definition as ValidateStateMachineDefinition does",
        description="Print the diagnostics AWS's ValidateStateMachineDefinition reports for a definition, "
        "warnings included. Exit code: 0 valid (warnings allowed), 1 errors, 2 unreadable definition.",
    )
    validate.add_argument("definition", metavar="DEFINITION", nargs="?",
                          help="ASL file (JSON or YAML), or - for standard input")
    add_stack_arguments(validate)
    add_arguments(validate, ("stack_parameters",))
    validate.add_argument("--type", choices=("STANDARD", "EXPRESS"), default="STANDARD",
                          help="the state machine type to validate for (default STANDARD)")
    validate.add_argument("--json", action="store_true",
                          help="print ValidateStateMachineDefinition's response as JSON")
    validate.set_defaults(handler=validate_command)


# == reading ========================================================================================

def read_input(argument: str) -> str:
    """`--input`: the JSON text itself, or `@FILE` naming a file that holds it."""
    if not argument.startswith("@"):
        return argument
    try:
        return Path(argument[1:]).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise UnusableInput(f"cannot read the input {argument[1:]}: {error}") from None


def machine_name(source: str, given: str | None) -> str:
    if given is not None:
        return given
    return "run" if source == STDIN else default_machine_name(source)


# == validate =======================================================================================

def validate_command(settings: Settings, arguments: argparse.Namespace) -> int:
    # Imported here so that `--help` answers without loading the engine.
    from sfn_emulator.dialects import read_anchored
    from sfn_emulator.engine import Engine
    from sfn_emulator.service import StepFunctionsService

    problem = definition_given(arguments)
    if problem is not None:
        return unusable(problem)
    try:
        definition = (read_anchored(arguments.definition) if arguments.stack_path is None
                      else _stack_definition(settings, arguments))
    except UnreadableDefinition as error:
        return unusable(error)
    except StackProblem as error:
        print(f"sfn-emulator: {error}", file=sys.stderr)
        return EXIT_UNUSABLE if error.unreadable else EXIT_NOT_OK
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
        print(_diagnostics_text(arguments.definition or arguments.state_machine, response))
    return EXIT_OK if response["result"] == "OK" else EXIT_NOT_OK


def _stack_definition(settings: Settings, arguments: argparse.Namespace) -> str:
    """The definition of `--state-machine` as the stack makes it (loaded into a scratch emulator)."""
    from sfn_emulator.runtime import Emulator

    with Emulator(settings) as instance:
        arn = stack_machine_arn(instance, arguments, settings)
        return str(instance.service.describe_state_machine(stateMachineArn=arn)["definition"])


def _diagnostics_text(source: str, response: dict[str, Any]) -> str:
    diagnostics = response["diagnostics"]
    errors = sum(1 for diagnostic in diagnostics if diagnostic["severity"] == "ERROR")
    lines = [f"{source_label(source)}: {'valid' if response['result'] == 'OK' else 'invalid'} "
             f"({errors} error(s), {len(diagnostics) - errors} warning(s))"]
    for diagnostic in diagnostics:
        location = diagnostic.get("location")
        # A JSON syntax error's message ends with its location already (AWS's text): said once.
        where = f" at {location}" if location and location not in diagnostic["message"] else ""
        lines.append(f"  {diagnostic['severity']} {diagnostic['code']}{where}: {diagnostic['message']}")
    if response["truncated"]:
        lines.append("  (more diagnostics not shown)")
    return "\n".join(lines)


# == run ============================================================================================

def run_command(settings: Settings, arguments: argparse.Namespace) -> int:
    # Imported here so that `--help` answers without loading the engine, and `serve` without the Python API.
    from sfn_emulator.api import in_process_runner
    from sfn_emulator.dialects import read_anchored
    from sfn_emulator.results.execution_result import RUNNING
    from sfn_emulator.resources.function_map import FunctionMapError
    from sfn_emulator.resources.mock_file import MockConfigError
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.service.errors import ApiError

    if arguments.test_case is not None and settings.mock_config is None:
        return unusable("--test-case needs a mock configuration (--mock-config or SFN_MOCK_CONFIG)")
    problem = definition_given(arguments)
    if problem is not None:
        return unusable(problem)
    try:
        definition = read_anchored(arguments.definition) if arguments.stack_path is None else None
        input_text = read_input(arguments.input)
    except (UnreadableDefinition, UnusableInput) as error:
        return unusable(error)
    logging.basicConfig(level=settings.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        instance = Emulator(settings, function_hint="map its name or ARN to a Python callable in a functions map and "
                            "add `--functions FILE` to `sfn-emulator run`")
    except (FunctionMapError, MockConfigError) as error:
        return unusable(error)
    with instance:
        runner = in_process_runner(instance, role_arn=f"arn:aws:iam::{settings.account}:role/sfn-emulator-run")
        try:
            machine_arn = (stack_machine_arn(instance, arguments, settings) if definition is None else
                           runner.create_state_machine_from_json(
                               definition, name=machine_name(arguments.definition, arguments.name)))
            execution_arn = runner.start(machine_arn, input_text, test_case=arguments.test_case)
        except ApiError as error:
            return unusable(f"{error.code}: {error.message}")
        except StackProblem as error:
            return unusable(error)
        # Nobody else holds the task tokens here: the command answers them (flags, or a terminal's prompt).
        prompt = prompt_on_terminal if sys.stdin.isatty() and arguments.definition != "-" else None
        result = wait_answering(runner, instance.service, execution_arn, arguments.task_answers,
                                timeout=arguments.timeout, real_clock=settings.clock == "real", prompt=prompt)
    print(json.dumps(result_json(result), indent=2) if arguments.json else result_text(result))
    if result.status == RUNNING:
        print(still_running_message(result, arguments.timeout), file=sys.stderr)
    return EXIT_OK if result.succeeded else EXIT_NOT_OK


def still_running_message(result: ExecutionResult, timeout: float) -> str:
    where = result.stopped_in
    waiting = f", waiting in state {where.name!r}" if where is not None else ""
    tokens = result.token_waits
    hint = (f"; answer its task token with --send-task-success '{next(iter(tokens))}=JSON'" if tokens
            else "; give it more time with --timeout SECONDS")
    return f"sfn-emulator: the execution was still running after {timeout:g} s{waiting}{hint}"


def result_json(result: ExecutionResult) -> dict[str, Any]:
    """`run --json`: how the execution ended and the names of the states it entered."""
    return {
        "executionArn": result.execution_arn,
        "status": result.status,
        "startDate": format_time(result.start_date),
        "stopDate": format_time(result.stop_date) if result.stop_date else None,
        "output": result.output,
        "error": result.error,
        "cause": result.cause,
        "statesVisited": result.visited_states,
    }


def result_text(result: ExecutionResult) -> str:
    """`run`'s report: status, output or error and cause, and each state entered with its clock time."""
    lines = [f"Execution: {result.execution_arn}", f"Status:    {result.status}"]
    if result.succeeded:
        lines.append(f"Output:    {json.dumps(result.output)}")
    if result.error is not None:
        lines.append(f"Error:     {result.error}")
    if result.cause is not None:
        lines.append(f"Cause:     {result.cause}")
    lines.append("States visited:")
    lines += [f"  {format_time(visit.entered)}  {visit.name}" for visit in result.visits]
    return "\n".join(lines)
