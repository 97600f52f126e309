"""The `sfn-emulator` command: `main` parses the command line; each module adds one family of subcommands."""

from sfn_emulator.cli.main import main

__all__ = ["main"]
