"""An ExpressionScope for tests of compiled expressions: a given Context Object and variables, nothing else."""

from __future__ import annotations

from typing import Any

from sfn_emulator.process.randomness import Randomness


class FixedScope:
    """`FixedScope()` reads no Context Object and no variables (an unknown variable is a KeyError)."""

    def __init__(self, context: dict[str, Any] | None = None, variables: dict[str, Any] | None = None) -> None:
        self.context_object = context or {}
        self.variables = variables or {}
        self.randomness = Randomness(0)

    def variable(self, name: str) -> Any:
        return self.variables[name]

    def visible_variables(self) -> dict[str, Any]:
        return self.variables
