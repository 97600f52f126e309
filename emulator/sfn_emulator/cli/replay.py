"""`sfn-emulator replay` and `sfn-emulator export-test`: test a definition against what happened.

- `replay HISTORY --definition FILE [--input JSON] [--until-divergence] [--report FILE]
  [--mock-config FILE --test-case NAME] [--check-redrive]` replays a recorded GetExecutionHistory
  (boto3's or the AWS CLI's answer, pages concatenated) against the definition.
  Exit codes: 0 the replay took the recorded path with the same outputs; 1 it diverged (the first
  divergence is printed); 2 bad input (history, definition, options).
- `export-test EXECUTION_ARN --endpoint URL [--output DIR]`, or `export-test --history FILE
  [--definition FILE] [--name MACHINE] [--test-case NAME]`, writes the execution as a Step Functions
  Local mock configuration test case (`sfn_emulator.replay.mock_case`). Exit codes: 0 written; 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from sfn_emulator.cli.exits import unusable
from sfn_emulator.config import Settings, add_arguments

REPLAY_SETTINGS = ("account", "region", "functions", "mock_config", "log_level", "seed")

EXIT_MATCHED = 0
EXIT_DIVERGED = 1


def add_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `replay` and `export-test` on the `sfn-emulator` parser."""
    replay = commands.add_parser(
        "replay", help="replay a recorded execution history against a definition",
        description="Run DEFINITION with the answers a recorded execution got (each Task attempt's result or "
        "error, matched by state, attempt, Map iteration and Parallel branch), on a clock starting at the "
        "recording's start, and compare the new history with the recorded one. Exit 0: same path, same "
        "outputs; 1: diverged (the first divergence is printed); 2: bad input.",
    )
    replay.add_argument("history", metavar="HISTORY", help="GetExecutionHistory's JSON (pages concatenated), or -")
    replay.add_argument("--definition", metavar="FILE", required=True, help="the definition to replay (JSON or YAML)")
    replay.add_argument("--input", metavar="JSON", help="the execution input (default: the recording's)")
    replay.add_argument("--until-divergence", action="store_true", help="stop the replay at the first divergence")
    replay.add_argument("--report", metavar="FILE", help="write the whole comparison as JSON to FILE")
    replay.add_argument("--test-case", metavar="NAME",
                        help="answer Tasks the recording lacks from this test case of --mock-config")
    replay.add_argument("--check-redrive", action="store_true",
                        help="for a FAILED, TIMED_OUT or ABORTED recording: redrive the replay, say whether "
                        "RedriveExecution accepted it and how it ended")
    add_arguments(replay, REPLAY_SETTINGS)
    replay.set_defaults(handler=replay_command)

    export = commands.add_parser(
        "export-test", help="write an execution as a Step Functions Local mock configuration test case",
        description="Write an execution's recorded Task answers as a test case of a mock configuration file "
        "(MockConfigFile.json, AWS Step Functions Local's format), with its definition and a CASE.test.json "
        "holding its input and expected output or error; sfn_emulator.run_test_case(...) runs it.",
    )
    export.add_argument("execution", metavar="EXECUTION_ARN", nargs="?", help="an execution of --endpoint")
    export.add_argument("--endpoint", metavar="URL", help="the Step Functions endpoint the execution ran on")
    export.add_argument("--history", metavar="FILE", help="a saved GetExecutionHistory instead of an execution")
    export.add_argument("--definition", metavar="FILE", help="with --history: the definition to write beside it")
    export.add_argument("--name", metavar="MACHINE", help="the state machine's name (default: the execution's, "
                        "or the definition file's)")
    export.add_argument("--test-case", metavar="NAME", help="the test case's name (default: the execution's name)")
    export.add_argument("--output", metavar="DIR", default=".", help="where to write (default: .)")
    add_arguments(export, ("account", "region", "log_level"))
    export.set_defaults(handler=export_command)


def replay_command(settings: Settings, arguments: argparse.Namespace) -> int:
    from sfn_emulator.protocol.definition_files import UnreadableDefinition, read_definition_file
    from sfn_emulator.replay import HistoryError, ReplayError, history_events, read_history_file
    from sfn_emulator.resources.mock_file import MockConfigError
    from sfn_emulator.runtime import Emulator

    if arguments.test_case is not None and settings.mock_config is None:
        return unusable("--test-case needs --mock-config FILE")
    try:
        events = (history_events(_stdin_documents()) if arguments.history == "-"
                  else read_history_file(arguments.history))
        definition = read_definition_file(arguments.definition)
        given = json.loads(arguments.input) if arguments.input is not None else None
    except (HistoryError, UnreadableDefinition) as error:
        return unusable(str(error))
    except ValueError as error:
        return unusable(f"--input is not JSON: {error}")
    try:
        with Emulator(settings, function_hint="--functions") as emulator:
            result = emulator.replay(events, definition, given, test_case=arguments.test_case,
                                     until_divergence=arguments.until_divergence,
                                     check_redrive=arguments.check_redrive)
    except (HistoryError, ReplayError, MockConfigError) as error:
        return unusable(str(error))
    if arguments.report:
        Path(arguments.report).write_text(json.dumps(result.report(), indent=2, default=str) + "\n", encoding="utf-8")
    print(result.explain())
    if result.redrive is not None:
        print(f"redrive: {json.dumps(result.redrive.to_json())}")
    return EXIT_MATCHED if result.matched else EXIT_DIVERGED


def export_command(settings: Settings, arguments: argparse.Namespace) -> int:
    from sfn_emulator.protocol.definition_files import UnreadableDefinition, default_machine_name, read_definition_file
    from sfn_emulator.replay import HistoryError, history_events, read_history_file
    from sfn_emulator.replay.mock_case import write_test_case

    if (arguments.execution is None) == (arguments.history is None):
        return unusable("give an EXECUTION_ARN (with --endpoint) or --history FILE")
    try:
        if arguments.history is not None:
            events = read_history_file(arguments.history)
            definition = read_definition_file(arguments.definition) if arguments.definition else None
            name = arguments.name or (default_machine_name(arguments.definition) if arguments.definition
                                      else "StateMachine")
            case = arguments.test_case or Path(arguments.history).stem
        else:
            if not arguments.endpoint:
                return unusable("an EXECUTION_ARN needs --endpoint URL")
            pages, definition, machine, execution = _fetch(arguments.endpoint, arguments.execution, settings)
            events = history_events(pages)
            name, case = arguments.name or machine, arguments.test_case or execution
    except (HistoryError, UnreadableDefinition) as error:
        return unusable(str(error))
    except _FetchError as error:
        return unusable(str(error))
    for path in write_test_case(Path(arguments.output), events, state_machine=name, test_case=case,
                                definition=definition):
        print(path)
    return EXIT_MATCHED


class _FetchError(Exception):
    pass


def _fetch(endpoint: str, execution_arn: str, settings: Settings) -> tuple[list[Any], str, str, str]:
    """The execution's history pages, its machine's definition and name, and its own name, over the API."""
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError, ClientError

    account = execution_arn.split(":")[4] if execution_arn.count(":") >= 4 else settings.account
    region = execution_arn.split(":")[3] if execution_arn.count(":") >= 4 else settings.region
    client = boto3.client("stepfunctions", endpoint_url=endpoint, region_name=region or settings.region,
                          aws_access_key_id=account or "testing", aws_secret_access_key="testing",
                          config=Config(retries={"total_max_attempts": 1}))
    try:
        description = client.describe_execution(executionArn=execution_arn)
        machine = client.describe_state_machine(stateMachineArn=description["stateMachineArn"])
        pages = list(client.get_paginator("get_execution_history").paginate(executionArn=execution_arn))
    except ClientError as error:
        raise _FetchError(f"{endpoint}: {error.response['Error'].get('Message', error)}") from None
    except BotoCoreError as error:
        raise _FetchError(f"cannot reach {endpoint}: {error}") from None
    return pages, machine["definition"], machine["name"], description["name"]


def _stdin_documents() -> list[Any]:
    from sfn_emulator.replay.history import json_documents

    return json_documents(sys.stdin.read(), "standard input")


