"""Workflow variables (`Assign`): the values one line of control sees, and where its assignments go.

The top level of an execution has one scope. A Parallel branch or a Map iteration gets an inner
scope: it reads the outer variables but what it assigns stays in its own scope and is dropped
when the branch or iteration ends (only its output leaves it), as AWS scopes them.
"""

from __future__ import annotations

from typing import Any, Mapping

JSON = Any


class Variables:
    """One scope of workflow variables, with read access to the scope it is nested in."""

    __slots__ = ("values", "outer")

    def __init__(self, outer: Variables | None = None, values: Mapping[str, JSON] | None = None) -> None:
        self.values: dict[str, JSON] = dict(values or {})
        self.outer = outer

    def get(self, name: str) -> JSON:
        """The variable's value, from this scope or an outer one; KeyError when nobody assigned it."""
        scope: Variables | None = self
        while scope is not None:
            if name in scope.values:
                return scope.values[name]
            scope = scope.outer
        raise KeyError(name)

    def inner(self) -> Variables:
        """A scope for a Parallel branch or a Map iteration nested in this one."""
        return Variables(self)

    def assign(self, assignments: Mapping[str, JSON]) -> None:
        """Bind every name at once (an Assign's values were all evaluated before any is bound)."""
        self.values.update(assignments)

    def visible(self) -> dict[str, JSON]:
        """Every variable this scope can read, inner names hiding outer ones (for JSONata bindings)."""
        merged = self.outer.visible() if self.outer is not None else {}
        merged.update(self.values)
        return merged
