"""The JSONata that Step Functions refuses when a definition is created, and AWS's words for it.

CreateStateMachine, UpdateStateMachine and ValidateStateMachineDefinition parse every `{% %}`
expression of a JSONata state; what AWS refuses there never runs:

- An expression that does not parse: `INVALID_JSONATA_EXPRESSION` with JSONata's message without its
  code, values quoted as jsonata-js quotes them (`Expected "]", got ","`, `Unexpected end of
  expression`, `The symbol "}" cannot be used as a unary operator`; measured on AWS, floci-io/floci#2745).
- A reference to the context at the top level: an expression has no context item in Step Functions
  (the input is `$states.input`), so a path whose first step is a bare name is refused with
  `UNSUPPORTED_JSONATA_EXPRESSION`, "Reference to 'phone' at the top level is not supported." (measured
  on AWS over the jsonata-js test suite, floci-io/floci#2670), one diagnostic per distinct name. AWS's
  documentation ("Transforming data with JSONata") also forbids `$` and `$$` at the top level: AWS
  answers `$$` with `INVALID_JSONATA_EXPRESSION` (floci-io/floci#2745); its words for either, and the
  code for `$`, are not published, so the texts here are the emulator's, in the same form.

"Top level" is where an expression reads the root context: the first step of a path and every
operand, argument, array item and object value around it. The steps after the first, predicates
(`[...]`), group-by objects and sort terms read the item before them, and a lambda's body reads
its own context: none is checked.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from sfn_emulator.asl.validation import INVALID_JSONATA_EXPRESSION, UNSUPPORTED_JSONATA_EXPRESSION

Refusal = tuple[str, str]  # (diagnostic code, AWS's message)

_PLACEHOLDER = re.compile(r"\{\{\w+\}\}")  # a value in one of JSONata's message templates


def syntax_refusal(problem: Any) -> Refusal:
    """A jsonata parse error (`JException`) as AWS reports it at create time."""
    from jsonata.jexception import JException

    template = JException.error_codes.get(problem.error)
    if template is None:
        return INVALID_JSONATA_EXPRESSION, str(problem)
    return INVALID_JSONATA_EXPRESSION, jsonata_js_message(template, (problem.current, problem.expected, problem.extra))


def jsonata_js_message(template: str, values: tuple[Any, ...]) -> str:
    """One of JSONata's message templates filled as jsonata-js fills it, and AWS shows it: each `{{name}}`
    (in order) by the value's JSON text, so a name is quoted and a number is not."""
    remaining = iter(values)
    return _PLACEHOLDER.sub(lambda _: json.dumps(next(remaining, None), ensure_ascii=False), template)


def top_level_refusals(ast: Any) -> list[Refusal]:
    """What AWS refuses in a parsed expression: its top-level context references, each name once."""
    refusals: list[Refusal] = []
    for reference in _top_level_references(ast):
        if reference == "$$":
            refusal = (INVALID_JSONATA_EXPRESSION, "Reference to '$$' at the top level is not supported.")
        else:
            refusal = (UNSUPPORTED_JSONATA_EXPRESSION, f"Reference to '{reference}' at the top level is not supported.")
        if refusal not in refusals:
            refusals.append(refusal)
    return refusals


def _top_level_references(node: Any) -> Iterator[str]:
    """The names (and `$`, `$$`) read from the root context, walking only top-level positions."""
    if node is None:
        return
    kind = getattr(node, "type", None)
    if kind == "path":
        steps = node.steps or []
        if steps:
            first = steps[0]
            if getattr(first, "type", None) == "name":
                yield str(first.value)
            else:
                yield from _top_level_references(first)
        return
    if kind == "name":
        yield str(node.value)
    elif kind == "variable":
        if node.value == "":
            yield "$"
        elif node.value == "$":
            yield "$$"
    elif kind == "lambda":
        return  # its body reads its own context
    else:
        for child in _children(node):
            yield from _top_level_references(child)


def _children(node: Any) -> Iterator[Any]:
    """The sub-expressions of an operator, call, block, condition or constructor (top-level positions)."""
    for attribute in ("lhs", "rhs", "expression", "condition", "then", "_else", "procedure"):
        child = getattr(node, attribute, None)
        if hasattr(child, "type"):
            yield child
    for attribute in ("expressions", "arguments"):
        for child in getattr(node, attribute, None) or ():
            if hasattr(child, "type"):
                yield child
    for pair in getattr(node, "lhs_object", None) or ():  # an object constructor's [key, value] pairs
        yield from (part for part in pair if hasattr(part, "type"))

