"""`sfn-emulator stack show PATH`, and the loading of `--stack` paths for `serve`, `run` and `validate`.

`stack show` loads the stack into an in-process emulator (no server) and prints one JSON document:
`state_machines`, `functions` (with `served_by`), `resources` and `unresolved`. Exit codes: 0 nothing
unresolved; 1 something unresolved; 2 unreadable input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from sfn_emulator.cli.exits import EXIT_NOT_OK, EXIT_OK, unusable
from sfn_emulator.config import Settings, add_arguments

if TYPE_CHECKING:
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.stacks import Stack

SHOW_SETTINGS = ("account", "region", "lambda_endpoint", "mock_config", "stack_parameters")


class StackProblem(Exception):
    """A stack that cannot be used: unreadable (`unreadable`), or with something unresolved; the message says what."""

    def __init__(self, message: str, *, unreadable: bool = True) -> None:
        super().__init__(message)
        self.unreadable = unreadable


def add_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    stack = commands.add_parser("stack", help="show what a stack loads into the emulator",
                                description="Read a SAM/CloudFormation template, CDK assembly, Serverless package "
                                "or Terraform JSON as `serve --stack` would, without serving.")
    actions = stack.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = actions.add_parser(
        "show", help="print the stack's state machines, functions, resources and what is unresolved, as JSON",
        description="Load the stack into an in-process emulator and print its state_machines, functions "
        "(served_by python, mock, endpoint or none), resources and unresolved references (file and line). "
        "Exit code: 0 nothing unresolved, 1 something unresolved, 2 unreadable input.")
    show.add_argument("path", metavar="PATH", help="template file, cdk.out directory, .serverless directory or "
                      "Terraform JSON")
    add_arguments(show, SHOW_SETTINGS)
    show.set_defaults(handler=show_command)


def add_stack_arguments(parser: argparse.ArgumentParser) -> None:
    """`--stack PATH --state-machine NAME_OR_LOGICAL_ID` for `run` and `validate` (with the setting
    `--stack-parameter`)."""
    parser.add_argument("--stack", metavar="PATH", dest="stack_path",
                        help="take the definition from this stack (template, cdk.out, .serverless or Terraform JSON) "
                             "instead of a DEFINITION file; with --state-machine")
    parser.add_argument("--state-machine", metavar="NAME_OR_LOGICAL_ID",
                        help="the stack's state machine to use, by its name or logical id")


def show_command(settings: Settings, arguments: argparse.Namespace) -> int:
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.stacks import StackError

    with Emulator(settings) as instance:
        try:
            stack = instance.load_stack(arguments.path, parameters(settings.stack_parameters))
        except StackError as error:
            return unusable(error)
    print(json.dumps(stack.json(), indent=2))
    return EXIT_NOT_OK if stack.unresolved else EXIT_OK


def parameters(pairs: tuple[str, ...] | list[str]) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in pairs)


def load_all(instance: Emulator, paths: tuple[Path, ...] | list[Path], pairs: tuple[str, ...] | list[str]) -> list[Stack]:
    """Load each path in order; StackProblem with every message when one cannot be read or is not whole."""
    from sfn_emulator.stacks import StackError

    loaded = []
    for path in paths:
        try:
            stack = instance.load_stack(path, parameters(pairs))
        except StackError as error:
            raise StackProblem(str(error)) from None
        if stack.unresolved:
            lines = [f"{path}: {len(sum(stack.unresolved.values(), []))} unresolved (see `sfn-emulator stack show`):"]
            lines += [f"  {problem.where}: {problem.what}" for problems in stack.unresolved.values()
                      for problem in problems]
            raise StackProblem("\n".join(lines), unreadable=False)
        loaded.append(stack)
    return loaded


def definition_given(arguments: argparse.Namespace) -> str | None:
    """None when the command has what it needs: a DEFINITION or a `--stack` (not both); else what is wrong."""
    if arguments.stack_path is not None and arguments.definition is not None:
        return "give either a DEFINITION or --stack PATH --state-machine NAME, not both"
    if arguments.stack_path is None and arguments.definition is None:
        return "give a DEFINITION file (or - for standard input), or --stack PATH --state-machine NAME"
    return None


def stack_machine_arn(instance: Emulator, arguments: argparse.Namespace, settings: Settings) -> str:
    """The ARN of `--state-machine` in `--stack`, loaded into `instance`; StackProblem when it cannot be."""
    if not arguments.state_machine:
        raise StackProblem("--stack needs --state-machine NAME_OR_LOGICAL_ID")
    stack, = load_all(instance, [Path(arguments.stack_path)], settings.stack_parameters)
    try:
        return str(stack.state_machine(arguments.state_machine))
    except KeyError as error:
        raise StackProblem(str(error.args[0])) from None
