"""Payload templates of the JSONPath query language: Parameters, ItemSelector, ResultSelector, ...

`compile_template` turns a template into a tree of small evaluator nodes once; every key ending
in `.$` becomes a path or an intrinsic call, and every part without one is folded into a single
constant that evaluations share (JSON values are treated as immutable).

As AWS does:
- a `.$` value that is neither a path (`$...`, `$$...`, `$var...`) nor a valid intrinsic call is
  rejected with the definition: "The value for the field 'x.$' must be a valid JSONPath or a
  valid intrinsic function call" (raised here as `TemplateError`);
- a path that selects nothing fails the state with States.Runtime: "The JSONPath '$.x' specified
  for the field 'x.$' could not be found in the input '<the input as compact JSON>'" (the engine
  prefixes "An error occurred while executing the state ...", as for every States.Runtime cause).
"""

from __future__ import annotations

from typing import Union

from msgspec import Struct

from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.errors import RUNTIME, StatesError
from sfn_emulator.asl.intrinsics import Intrinsic, compile_intrinsic
from sfn_emulator.asl.model import JSON, Constant, Expression, ExpressionScope
from sfn_emulator.asl.paths import JsonPath, PathNotFound, compile_path, is_path_text

__all__ = ["PayloadTemplate", "TemplateError", "compile_template"]

DYNAMIC_SUFFIX = ".$"

Location = tuple[Union[str, int], ...]


class TemplateError(ValueError):
    """A `.$` field whose value is neither a path nor a valid intrinsic call.

    `key` is the offending field name (with its `.$`) and `location` the keys and indexes from the
    template's own field (e.g. "Parameters") down to the object that holds it."""

    def __init__(self, key: str, location: Location, detail: str | None = None) -> None:
        self.key = key
        self.location = location
        self.detail = detail
        self.message = f"The value for the field '{key}' must be a valid JSONPath or a valid intrinsic function call"
        super().__init__(self.message)

    @property
    def pointer(self) -> str:
        """The location as a JSON-pointer-like text, e.g. "/Parameters/nested"."""
        return "".join(f"/{part}" for part in self.location)


def compile_template(template: JSON, *, field: str = "Parameters") -> PayloadTemplate:
    """Compile a payload template; `field` names it in `TemplateError.location`."""
    return PayloadTemplate(_compile(template, (field,)))


class PayloadTemplate(Struct, frozen=True):
    """A compiled payload template."""

    root: Expression

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        """The payload for the effective input `value`; raises `StatesError` when a path misses."""
        return self.root.evaluate(value, scope)


class _Object(Struct, frozen=True):
    fields: tuple[tuple[str, Expression], ...]

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        return {key: node.evaluate(value, scope) for key, node in self.fields}


class _Array(Struct, frozen=True):
    items: tuple[Expression, ...]

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        return [node.evaluate(value, scope) for node in self.items]


class _PathField(Struct, frozen=True):
    key: str  # the field as written, with its `.$`
    text: str
    path: JsonPath

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        try:
            return self.path.evaluate(value, scope)
        except PathNotFound:
            raise StatesError(
                RUNTIME,
                f"The JSONPath '{self.text}' specified for the field '{self.key}' could not be found "
                f"in the input '{compact_json(value)}'",
            ) from None


class _IntrinsicField(Struct, frozen=True):
    intrinsic: Intrinsic

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        return self.intrinsic.evaluate(value, scope)


def _compile(template: JSON, location: Location) -> Expression:
    if isinstance(template, dict):
        fields = tuple(
            (key[: -len(DYNAMIC_SUFFIX)], _compile_dynamic(key, item, location))
            if key.endswith(DYNAMIC_SUFFIX)
            else (key, _compile(item, (*location, key)))
            for key, item in template.items()
        )
        if all(isinstance(node, Constant) for _, node in fields):
            return Constant(template)
        return _Object(fields)
    if isinstance(template, list):
        items = tuple(_compile(item, (*location, index)) for index, item in enumerate(template))
        if all(isinstance(node, Constant) for node in items):
            return Constant(template)
        return _Array(items)
    return Constant(template)


def _compile_dynamic(key: str, text: JSON, location: Location) -> Expression:
    if not isinstance(text, str):
        raise TemplateError(key, location, "the value is not a string")
    try:
        if is_path_text(text):
            return _PathField(key, text, compile_path(text))
        return _IntrinsicField(compile_intrinsic(text))
    except ValueError as error:  # IntrinsicSyntaxError, or the paths module's syntax error
        raise TemplateError(key, location, str(error)) from error

