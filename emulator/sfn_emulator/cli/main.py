"""The `sfn-emulator` command. `serve` runs the HTTP endpoint until SIGINT or SIGTERM."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from types import FrameType
from typing import Sequence

import sfn_emulator
from sfn_emulator.process import long_lived
from sfn_emulator.cli.definitions import add_commands as add_definition_commands
from sfn_emulator.cli.exits import EXIT_OK, EXIT_UNUSABLE, unusable
from sfn_emulator.cli.insight import add_commands as add_insight_commands
from sfn_emulator.cli.replay import add_commands as add_replay_commands
from sfn_emulator.cli.snapshot import add_commands as add_snapshot_commands
from sfn_emulator.cli.stacks import add_commands as add_stack_commands
from sfn_emulator.config import Settings, SettingsError, add_arguments

SNIPPET = """\
import boto3
from botocore.config import Config

sfn = boto3.client(
    "stepfunctions",
    endpoint_url="{endpoint}",
    region_name="{region}",
    aws_access_key_id="test",
    aws_secret_access_key="test",
    # Without this botocore sends StartSyncExecution and TestState to "sync-<host>".
    config=Config(inject_host_prefix=False),
)"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sfn-emulator",
        description="A fast, faithful local emulator of AWS Step Functions.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {sfn_emulator.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="serve the Step Functions API over HTTP",
        description="Serve the AWS Step Functions API (JSON 1.0 protocol) over HTTP. "
        "Every option can also be set by the environment variable shown; a flag wins over its variable.",
    )
    add_arguments(serve)
    serve.set_defaults(handler=serve_command)
    add_definition_commands(commands)
    add_insight_commands(commands)
    add_snapshot_commands(commands)
    add_replay_commands(commands)
    add_stack_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
    if arguments.command is None:
        parser.print_help(sys.stderr)
        return EXIT_UNUSABLE
    try:
        settings = Settings.from_sources(vars(arguments), os.environ)
    except SettingsError as error:
        parser.error(str(error))
    try:
        return int(arguments.handler(settings, arguments))
    except KeyboardInterrupt:  # interrupted while starting or stopping
        return 130


def _start_errors(settings: Settings) -> tuple[type[Exception], ...]:
    """What a bad functions map, mock file or state directory raises at start; the mock file's and the
    store's modules (sqlite3, snapshots) are imported only when the settings name one."""
    from sfn_emulator.resources.function_map import FunctionMapError

    errors: list[type[Exception]] = [FunctionMapError]
    if settings.mock_config is not None:
        from sfn_emulator.resources.mock_file import MockConfigError

        errors.append(MockConfigError)
    if settings.state_dir is not None:
        from sfn_emulator.persistence.database import StoreError

        errors.append(StoreError)
    return tuple(errors)


def serve_command(settings: Settings, arguments: argparse.Namespace) -> int:
    # Imported here so that `--help` and bad settings answer without loading the engine.
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.wire import HttpServer
    from sfn_emulator.console.address import console_url
    from sfn_emulator.wire.server_log import log_executions

    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        instance = Emulator(settings, function_hint="map its name or ARN to a Python callable in a functions map and "
                            "restart with `sfn-emulator serve --functions FILE` (or SFN_EMULATOR_FUNCTIONS)")
    except _start_errors(settings) as error:  # a bad functions map, mock file or store must not serve
        return unusable(error)
    log_executions(instance.service, instance.engine)
    with instance:
        if settings.stacks:
            from sfn_emulator.cli.stacks import StackProblem, load_all

            try:  # a stack that does not load whole must not serve
                stacks = load_all(instance, settings.stacks, settings.stack_parameters)
            except StackProblem as error:
                return unusable(error)
            for path, stack in zip(settings.stacks, stacks):
                print(f"Loaded {path}: state machines {', '.join(machine.name for machine in stack.state_machines.values())}; "
                      f"{len(stack.functions)} function(s), {len(stack.resources)} resource(s)", flush=True)
        try:
            server = HttpServer(instance.server_app, settings.host, settings.port, allowed_hosts=settings.allowed_hosts)
        except OSError as error:
            print(f"sfn-emulator: cannot listen on {settings.host}:{settings.port}: {error}", file=sys.stderr)
            return 1
        long_lived.enable()  # this process is the server's: what it loaded stays out of full collections
        # Installed before the banner, so a signal sent on seeing it is handled; and for SIGINT too,
        # since a process started in the background may inherit SIGINT ignored.
        previous = {number: signal.signal(number, _interrupt) for number in (signal.SIGINT, signal.SIGTERM)}
        try:
            print(
                f"sfn-emulator {sfn_emulator.__version__} serving AWS Step Functions on {server.endpoint_url} "
                f"(account {settings.account}, region {settings.region}, clock {settings.clock})\n\n"
                f"{SNIPPET.format(endpoint=server.endpoint_url, region=settings.region)}\n\n"
                f"Web console: {console_url(server.endpoint_url)}\n\n"
                "Stop with Ctrl-C.",
                flush=True,
            )
            server.serve()
        except KeyboardInterrupt:  # a signal before the loop began
            server.close()
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
    print("sfn-emulator stopped.", flush=True)
    return EXIT_OK


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGINT and SIGTERM end serving: waitress's loop stops on KeyboardInterrupt."""
    raise KeyboardInterrupt
