"""SWF's numbers written as text, checked before a request changes anything: durations
(`DurationInSeconds`: whole seconds; `DurationInSecondsOptional` and `DurationInDays`: the same or
"NONE") and task priorities (`TaskPriority`: a whole number within Java's int range, sign allowed).

The rule is the shape's, so it holds for every member of that shape in every operation: a start's
timeouts, a type's defaults, each decision's attributes. The request is walked with SWF's model
(botocore's data file); every violation is reported together, as Coral's validator does, in a
`ValidationException` that names each member by its path ("decisions.1.member.
scheduleActivityTaskDecisionAttributes.startToCloseTimeout").
"""

from __future__ import annotations

import functools
import re
from typing import Any

from sfn_emulator.protocol.service_json import ShapeJson, read_service_json
from sfn_emulator.swf.faults import SwfValidationException

_WHOLE_SECONDS = re.compile(r"[0-9]+")
_PRIORITY = re.compile(r"[+-]?[0-9]+")
_INT_RANGE = (-(2**31), 2**31 - 1)
_RULES = {
    "DurationInSeconds": ("a whole number of seconds", False),
    "DurationInSecondsOptional": ("a whole number of seconds or NONE", True),
    "DurationInDays": ("a whole number of days or NONE", True),
}


def check_numbers(operation: str, params: dict[str, Any]) -> None:
    """SwfValidationException naming every duration or priority of the request that is not one."""
    shape = _input_shapes().get(operation)
    if shape is None:
        return
    problems: list[str] = []
    _walk(shape, params, "", problems)
    if problems:
        count = len(problems)
        raise SwfValidationException(f"{count} validation error{'s' if count > 1 else ''} detected: {'; '.join(problems)}")


@functools.cache
def _input_shapes() -> dict[str, ShapeJson]:
    model = read_service_json("swf")
    return {name: model.operation_model(name).input_shape for name in model.operation_names}


def _walk(shape: ShapeJson, value: Any, path: str, problems: list[str]) -> None:
    if value is None or not _holds_numbers(shape):
        return
    if shape.type_name == "structure" and isinstance(value, dict):
        for name, member in shape.members.items():
            _walk(member, value.get(name), f"{path}.{name}" if path else name, problems)
    elif shape.type_name == "list" and isinstance(value, list):
        for index, item in enumerate(value, start=1):
            _walk(shape.member, item, f"{path}.{index}.member", problems)
    elif isinstance(value, str):
        problem = _problem(shape.name, value)
        if problem:
            problems.append(f"Value '{value}' at '{path}' failed to satisfy constraint: Member must be {problem}")


def _problem(shape_name: str, text: str) -> str | None:
    if shape_name == "TaskPriority":
        if _PRIORITY.fullmatch(text) and _INT_RANGE[0] <= int(text) <= _INT_RANGE[1]:
            return None
        return f"a whole number from {_INT_RANGE[0]} to {_INT_RANGE[1]}"
    wanted, none_allowed = _RULES[shape_name]
    if _WHOLE_SECONDS.fullmatch(text) or (none_allowed and text == "NONE"):
        return None
    return wanted


_HOLDING: dict[str, bool] = {}


def _holds_numbers(shape: ShapeJson) -> bool:
    """Whether the shape is, or contains, a number written as text (each shape judged once)."""
    if shape.name in _HOLDING:
        return _HOLDING[shape.name]
    _HOLDING[shape.name] = False  # a shape containing itself adds nothing while judged
    if shape.type_name == "structure":
        held = any(_holds_numbers(member) for member in shape.members.values())
    elif shape.type_name == "list":
        held = _holds_numbers(shape.member)
    else:
        held = shape.name == "TaskPriority" or shape.name in _RULES
    _HOLDING[shape.name] = held
    return held
