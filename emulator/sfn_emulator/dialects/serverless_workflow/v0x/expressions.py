"""The 0.6-0.8 drafts' jq expressions (`${ .x }`), with the interfaces the draft's interpreter reads
(`select`, `holds`, `evaluate`), evaluated in the one bounded jq sandbox (through DSL 1.0's
`expressions`, which binds variables: `$CONST` is the workflow's `constants`, `$SECRETS` empty).

Data filters as 0.8 defines them: a state's `input`/`output`, an action's `fromStateData` select;
an action's `results` (or an event's `data`) selects from the result, `toStateData` names where in
the state data it goes (`${ .a.b }` puts it under `a.b`; without it the result is merged at the
top), `useResults`/`useData: false` adds nothing. Errors are matched by their name against the
codes of the `errors` an `onErrors` or a retry names.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from msgspec import Struct

from sfn_emulator.dialects.serverless_workflow.dsl1 import expressions as jq

JSON = Any
_MEMBER_PATH = re.compile(r"\A\.[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


class Jq(Struct, frozen=True):
    """One expression (with or without `${ }`), and the constants it may read."""

    text: str
    constants: Mapping[str, JSON] = {}

    def evaluate(self, data: JSON) -> JSON:
        return jq.evaluate(self.text, data, {"CONST": dict(self.constants), "SECRETS": {}})

    def select(self, data: JSON) -> JSON:
        return self.evaluate(data)

    def holds(self, data: JSON) -> bool:
        return jq.truthy(self.evaluate(data))


class JqTemplate(Struct, frozen=True):
    """A value whose `${ }` strings are expressions (arguments, event data, context attributes);
    a string that is one expression is its value."""

    value: JSON
    constants: Mapping[str, JSON] = {}

    def evaluate(self, data: JSON) -> JSON:
        return jq.evaluate_value(self.value, data, {"CONST": dict(self.constants), "SECRETS": {}})


class PlacedResult(Struct, frozen=True):
    """`results`/`data`, `toStateData` and `useResults`/`useData` of an action or event filter: what
    is merged into the state data. `of_event`: it reads the event's payload."""

    selection: Jq | None = None
    destination: str | None = None
    use: bool = True
    of_event: bool = False

    def select(self, value: JSON) -> JSON:
        if not self.use:
            return {}
        if self.of_event and isinstance(value, dict):
            value = value.get("data")
        if self.selection is not None:
            value = self.selection.evaluate(value)
        if self.destination is None:
            return value
        for name in reversed(self.destination.lstrip(".").split(".")):
            value = {name: value}
        return value


def destination_path(text: str) -> str | None:
    """The member path `toStateData` names (`${ .a.b }`: `.a.b`), or None when it is not one."""
    inner = jq.unwrap(text)
    path = (inner if inner is not None else text).strip()
    return path if _MEMBER_PATH.match(path) else None


class ErrorMatch(Struct, frozen=True):
    """An `onErrors` entry or a retry: the error's name is one of `codes` (`any`: every error but
    `excluded`)."""

    codes: tuple[str, ...] = ()
    any: bool = False
    excluded: tuple[str, ...] = ()

    def holds(self, seen: JSON) -> bool:
        error = seen.get("error") if isinstance(seen, dict) else None
        name = error.get("name") if isinstance(error, dict) else None
        if self.any:
            return name not in self.excluded
        return name in self.codes
