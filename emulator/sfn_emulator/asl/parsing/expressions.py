"""Compiling a state's expression fields: paths, payload templates, intrinsic calls, JSONata
templates and typed JSONata fields, and Assign."""

from __future__ import annotations

from typing import Any, Callable, Iterator

from sfn_emulator.asl.intrinsics import IntrinsicSyntaxError, compile_intrinsic
from sfn_emulator.asl.jsonata_expressions import (
    JsonataSyntaxError,
    ResultType,
    compile_jsonata_template,
    compile_typed_jsonata,
    is_jsonata,
)
from sfn_emulator.asl.model import JSONATA, JSONPATH, Expression, ResultPath
from sfn_emulator.asl.parsing.recording import DiagnosticRecorder
from sfn_emulator.asl.parsing.rules import MAX_VARIABLE_NAME_LENGTH, RESERVED_VARIABLE, ABSENT, expected_type
from sfn_emulator.asl.paths import InvalidPath, compile_reference_path, compile_result_path, is_path_text
from sfn_emulator.asl.payload import TemplateError, compile_template
from sfn_emulator.asl.validation import NO_DOLLAR


class ExpressionFields:
    """Each method compiles one kind of field once, or records why it cannot in `recorder`."""

    def __init__(self, recorder: DiagnosticRecorder) -> None:
        self.recorder = recorder

    def path(
        self,
        value: dict,
        field: str,
        location: str,
        compiler: Callable[[str], Expression],
        *,
        nullable: bool = True,
    ) -> Expression | None:
        """A path field. InputPath/OutputPath default to `$` and may be null; the others are optional."""
        text = value.get(field, ABSENT)
        if text is ABSENT:
            return compiler("$") if nullable else None
        if text is None and nullable:
            return None
        if not isinstance(text, str):
            self.recorder.error(expected_type("STRING"), f"{location}/{field}")
            return None
        try:
            return compiler(text)
        except InvalidPath:
            self.recorder.error(f"The value for the field '{field}' must be a valid JSONPath", f"{location}/{field}")
            return None

    def result_path(self, value: dict, location: str) -> ResultPath | None:
        text = value.get("ResultPath", ABSENT)
        if text is ABSENT:
            return compile_result_path("$")
        if text is None:
            return None
        if not isinstance(text, str):
            self.recorder.error(expected_type("STRING"), f"{location}/ResultPath")
            return None
        try:
            return compile_result_path(text)
        except InvalidPath:
            self.recorder.error("The value for the field 'ResultPath' must be a valid JSONPath", f"{location}/ResultPath")
            return None

    def path_or_intrinsic(self, value: dict, field: str, location: str) -> Expression | None:
        """Fail's ErrorPath/CausePath: a reference path or an intrinsic function call."""
        text = value.get(field, ABSENT)
        if text is ABSENT:
            return None
        if not isinstance(text, str):
            self.recorder.error(expected_type("STRING"), f"{location}/{field}")
            return None
        compiled = _compile_dynamic_value(text, compile_reference_path)
        if compiled is None:
            self.recorder.error(
                f"The value for the field '{field}' must be a valid JSONPath or a valid intrinsic function call",
                f"{location}/{field}",
            )
        return compiled

    def template(self, value: dict, field: str, location: str) -> Expression | None:
        """A payload template (Parameters, ResultSelector, ItemSelector, Credentials), or None when absent."""
        if field not in value:
            return None
        template = value[field]
        for key, item in _static_keys(template):
            if looks_dynamic(item):
                self.recorder.warning(
                    NO_DOLLAR,
                    f"The field '{key}' looks like a JSONPath or an intrinsic function but its name does not end "
                    "with '.$', so it is passed as a string",
                    f"{location}/{field}",
                )
        try:
            return compile_template(template, field=field)
        except TemplateError as problem:
            self.recorder.error(problem.message, f"{location}{problem.pointer}")
            return None

    def credentials(self, value: dict, location: str) -> Expression | None:
        """A Task's Credentials: an object naming the role to assume, as `RoleArn` (`RoleArn.$` in JSONPath);
        AWS reports only a missing role, whatever else the object holds (recorded)."""
        if "Credentials" not in value:
            return None
        given = value["Credentials"]
        if not isinstance(given, dict):
            self.recorder.error(expected_type("OBJECT"), f"{location}/Credentials")
            return None
        if "RoleArn" not in given and not (self.recorder.language == JSONPATH and "RoleArn.$" in given):
            self.recorder.error("The field 'RoleArn' is required but was missing", f"{location}/Credentials")
            return None
        if self.recorder.language == JSONATA:
            return self.jsonata_template(value, "Credentials", location)
        return self.template(value, "Credentials", location)

    def arguments_or_parameters(self, value: dict, location: str) -> Expression | None:
        """A Task's or Parallel's input template: JSONata `Arguments` or JSONPath `Parameters`."""
        if self.recorder.language == JSONATA:
            return self.jsonata_template(value, "Arguments", location)
        return self.template(value, "Parameters", location)

    def jsonata_template(self, value: dict, field: str, location: str) -> Expression | None:
        """A JSONata field whose value is JSON with `{% ... %}` strings at any depth; None when absent."""
        if field not in value:
            return None
        try:
            return compile_jsonata_template(value[field], field)
        except JsonataSyntaxError as problem:
            self.jsonata_refused(problem, location)
            return None

    def jsonata_field(self, value: dict, field: str, location: str, result_type: ResultType) -> Expression | None:
        """A field (TimeoutSeconds, Seconds, Error, Items, ...) given as one `{% ... %}` expression in a JSONata
        state, which must give a value of `result_type`; None when it is absent or a plain value (checked by
        the caller)."""
        text = value.get(field)
        if not is_jsonata(text):
            return None
        if self.recorder.language != JSONATA:
            return None  # a JSONPath state checks the plain value, and so refuses the expression
        try:
            return compile_typed_jsonata(text, field, result_type)
        except JsonataSyntaxError as problem:
            self.jsonata_refused(problem, location)
            return None

    def jsonata_refused(self, problem: JsonataSyntaxError, location: str) -> None:
        """Record what AWS refuses in an expression, at the expression's own place (`.../Output/a/b`)."""
        for code, message in problem.refusals:
            self.recorder.error(message, f"{location}/{problem.field}", code)

    def assign(self, value: dict, location: str) -> Expression | None:
        """An `Assign` object: variable names to values (a payload template in JSONPath, JSON with
        `{% ... %}` strings in JSONata); None when absent."""
        if "Assign" not in value:
            return None
        assignments = value["Assign"]
        here = f"{location}/Assign"
        if not isinstance(assignments, dict):
            self.recorder.error(expected_type("OBJECT"), here)
            return None
        for key in assignments:
            name = key[: -len(".$")] if self.recorder.language == JSONPATH and key.endswith(".$") else key
            if name == RESERVED_VARIABLE:
                self.recorder.error(f"The variable name '{name}' is reserved and cannot be assigned", here)
            elif not name.isidentifier() or len(name) > MAX_VARIABLE_NAME_LENGTH:
                self.recorder.error(
                    f"The variable name '{name}' is invalid: a variable name starts with a letter or an underscore, "
                    f"holds only letters, digits and underscores, and has at most {MAX_VARIABLE_NAME_LENGTH} characters",
                    here,
                )
        if self.recorder.language == JSONATA:
            return self.jsonata_template(value, "Assign", location)
        return self.template(value, "Assign", location)


# ---------------------------------------------------------------------------------------------
# Payload template helpers


def dollar_keys(template: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) of the template whose key ends in `.$`, at any depth."""
    if isinstance(template, dict):
        for key, item in template.items():
            if key.endswith(".$"):
                yield key, item
            else:
                yield from dollar_keys(item)
    elif isinstance(template, list):
        for item in template:
            yield from dollar_keys(item)


def _static_keys(template: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) of the template whose key does not end in `.$`, at any depth."""
    if isinstance(template, dict):
        for key, item in template.items():
            if not key.endswith(".$"):
                yield key, item
                yield from _static_keys(item)
    elif isinstance(template, list):
        for item in template:
            yield from _static_keys(item)


def looks_dynamic(item: Any) -> bool:
    return isinstance(item, str) and (item == "$" or item.startswith(("$.", "$$.", "$[")) or (
        item.startswith("States.") and item.endswith(")")
    ))


def _compile_dynamic_value(text: str, path_compiler: Callable[[str], Expression]) -> Expression | None:
    """A `.$` value: a path (compiled by `path_compiler`) or an intrinsic call; None when it is neither."""
    try:
        if is_path_text(text):
            return path_compiler(text)
        return compile_intrinsic(text)
    except (InvalidPath, IntrinsicSyntaxError):
        return None
