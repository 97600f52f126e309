"""DSL 1.0's runtime expressions: jq, evaluated in SM4C's bounded jq sandbox (one sandbox for every
dialect: `sm4c.jq_sandbox` runs each program in a worker process with its time and memory bounds).

- An expression-typed property (`if`, `when`, `for.in`, `while`, `input.from`, `output.as`,
  `export.as`, a catch's `when`/`exceptWhen`) is jq with or without its `${ }` wrapper; in any other
  value (`set`, `with`, an event's attributes, an error's fields) only a string written `${ ... }` is
  an expression, anything else a literal, objects and arrays evaluated member by member.
- The arguments are bound as jq variables: `$context`, `$input`, `$output`, `$secrets`, `$task`,
  `$workflow`, `$runtime`, `$authorization`, and those a task introduces (`for`'s `each`/`at`,
  default `$item`/`$index`; a catch's `as`, default `$error`). A variable not in scope is null.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.dialects.json_values import map_leaves
from sfn_emulator.dialects.sm4c.jq_sandbox import JqEvaluationFailure, evaluate_first

JSON = Any
EXPRESSION_ERROR = "https://serverlessworkflow.io/spec/1.0.0/errors/expression"
ARGUMENTS = ("context", "input", "output", "secrets", "task", "workflow", "runtime", "authorization")
_WRAPPED = re.compile(r"\A\s*\$\{(.*)\}\s*\Z", re.DOTALL)
_VARIABLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_NAME = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]*\Z")


class ExpressionSyntaxError(ValueError):
    """A jq program that does not compile; the message is jq's."""


def unwrap(text: str) -> str | None:
    """The jq program inside `${ ... }`, or None when `text` is not so written."""
    found = _WRAPPED.match(text)
    return found.group(1).strip() if found else None


def _program(source: str, names: tuple[str, ...]) -> str:
    """`source` with the arguments and every other variable it names bound (an unbound one to null:
    which variables a task introduces is known only where it runs)."""
    named = tuple(dict.fromkeys((*names, *(n for n in _VARIABLE.findall(source) if not n.startswith("__")))))
    bindings = "".join(f"$__v.{name} as ${name} | " for name in named)
    return f". as [$__d, $__v] | {bindings}$__d | ({source})"


def check(text: str, extra: tuple[str, ...] = ()) -> None:
    """ExpressionSyntaxError when the expression (wrapped or not) does not compile."""
    import jq  # on first use: documents without expressions never load it

    source = unwrap(text)
    try:
        jq.compile(_program(text if source is None else source, ARGUMENTS + extra))
    except ValueError as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "syntax error"
        raise ExpressionSyntaxError(first.split(" at <top-level>")[0].removeprefix("jq: error: ")) from None


def evaluate(text: str, data: JSON, scope: Mapping[str, JSON]) -> JSON:
    """The first output of the expression `text` (wrapped or not) on `data`, null when none."""
    source = unwrap(text)
    names = tuple(dict.fromkeys((*ARGUMENTS, *scope)))
    program = _program(text if source is None else source, names)
    try:
        _, first = evaluate_first(program, [data, dict(scope)])
    except JqEvaluationFailure as failure:
        raise StatesError(EXPRESSION_ERROR, f"The runtime expression '{text}' {failure}") from None
    return first


def is_expression(value: JSON) -> bool:
    return isinstance(value, str) and unwrap(value) is not None


def evaluate_value(value: JSON, data: JSON, scope: Mapping[str, JSON]) -> JSON:
    """A value whose `${ }` strings are expressions (see the module docstring)."""
    return map_leaves(value, lambda leaf: evaluate(leaf, data, scope) if is_expression(leaf) else leaf)


def expressions_in(value: JSON) -> list[str]:
    """Every `${ }` string in a value, to check when the document is read."""
    if is_expression(value):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in expressions_in(item)]
    if isinstance(value, list):
        return [text for item in value for text in expressions_in(item)]
    return []


def is_variable_name(name: Any) -> bool:
    return isinstance(name, str) and _NAME.match(name) is not None


def truthy(value: JSON) -> bool:
    """jq's truth: anything but false and null."""
    return value is not None and value is not False
