"""jq expressions of SM4C documents (`${ ... }`), checked with the `jq` binding from PyPI when the
document is read and evaluated in a worker process (`jq_sandbox`: libjq holds the GIL, so a program
that never ends must not run in the server's process).

The binding is imported with the first expression compiled, so documents of other dialects never
load it. Variables are bound from the input rather than at compile time (`. as [$value, $rhs, $d] |
$d | (EXPR)`), so one compiled program serves every evaluation: `$value` (and `$rhs`, its other
name in SM4C's own examples) is the value a result handler merges, null elsewhere.

Where the document types an attribute as a JQ expression (`expression`, `condition`, `input`,
`inputFilter`, result handlers) the `${ }` wrapper is optional; inside `arguments` and
`contextAttributes` only strings written `${ ... }` are expressions, anything else is a literal.
"""

from __future__ import annotations

import re
from typing import Any

from msgspec import Struct

from sfn_emulator.asl.errors import QUERY_EVALUATION_ERROR, StatesError
from sfn_emulator.dialects.json_values import map_leaves
from sfn_emulator.dialects.sm4c.jq_sandbox import JqEvaluationFailure, evaluate_first

JSON = Any
_WRAPPED = re.compile(r"\A\s*\$\{(.*)\}\s*\Z", re.DOTALL)
_PRELUDE = ". as [$value, $rhs, $__data] | $__data | "


class ExpressionSyntaxError(ValueError):
    """A jq program that does not compile; the message is jq's."""


def unwrap(text: str) -> str | None:
    """The jq program inside `${ ... }`, or None when `text` is not so written."""
    found = _WRAPPED.match(text)
    return found.group(1).strip() if found else None


class JqExpression(Struct, frozen=True):
    text: str  # as written in the document
    program: str  # the jq source run, prelude included (a function of `text`)

    def evaluate(self, data: JSON, value: JSON = None) -> JSON:
        """The program's first output on `data` (null when it outputs nothing)."""
        try:
            _, first = evaluate_first(self.program, [value, value, data])
        except JqEvaluationFailure as failure:
            raise StatesError(QUERY_EVALUATION_ERROR, f"The jq expression '{self.text}' {failure}") from None
        return first

    def holds(self, data: JSON, value: JSON = None) -> bool:
        """A condition: jq's truth (anything but false and null)."""
        result = self.evaluate(data, value)
        return result is not None and result is not False


def compile_expression(text: str) -> JqExpression:
    """Compile a JQ-typed attribute (with or without its `${ }` wrapper)."""
    import jq  # on first use: documents of other dialects never load it

    program = unwrap(text)
    source = text if program is None else program
    try:
        jq.compile(_PRELUDE + source)  # compiling always ends, so the syntax is checked here
    except ValueError as error:
        raise ExpressionSyntaxError(_first_line(str(error))) from None
    return JqExpression(text, _PRELUDE + source)


def _first_line(message: str) -> str:
    """jq's first complaint, without its position (which counts the variable bindings prepended)."""
    first = message.strip().splitlines()[0] if message.strip() else "syntax error"
    return first.split(" at <top-level>")[0].removeprefix("jq: error: ")


class Template(Struct, frozen=True):
    """A JSON value whose `${ }` strings are expressions: `arguments`, `contextAttributes`."""

    shape: JSON

    def evaluate(self, data: JSON) -> JSON:
        return map_leaves(self.shape, lambda leaf: leaf.evaluate(data) if isinstance(leaf, JqExpression) else leaf)


def compile_template(value: JSON) -> Template:
    return Template(map_leaves(value, _compiled))


def _compiled(value: JSON) -> JSON:
    """A string that is an expression, compiled; any other leaf as it is."""
    return compile_expression(value) if isinstance(value, str) and unwrap(value) is not None else value
