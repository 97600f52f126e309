"""The rule on a state's name, checked wherever a state is declared (top level, branches, item processors).

The ASL specification allows state names of up to 128 Unicode characters, but Step Functions refuses
one longer than 80 (its quota on every name) with its own diagnostic code, as CreateStateMachine
reports it (AWS's text, quoted in asl-validator#69 and cfn-lint#4079): `INVALID_STATE_NAME: Invalid
State name: State '<name>' exceeds the 80-character limit allowed by the service at /States/<name>`.
Other characters are allowed in a state's name (spaces, brackets and non-ASCII letters are common in
AWS's own samples); the character rules of the API reference apply to state machine, execution and
activity names, not to state names.
"""

from __future__ import annotations

from sfn_emulator.asl.validation import ERROR, Diagnostic

INVALID_STATE_NAME = "INVALID_STATE_NAME"
MAX_STATE_NAME_LENGTH = 80


def state_name_problem(name: str, location: str) -> Diagnostic | None:
    """The diagnostic for a state name AWS refuses, or None; length counted in Unicode code points."""
    if len(name) > MAX_STATE_NAME_LENGTH:
        return Diagnostic(
            ERROR,
            INVALID_STATE_NAME,
            f"Invalid State name: State '{name}' exceeds the {MAX_STATE_NAME_LENGTH}-character limit allowed by "
            "the service",
            location,
        )
    return None
