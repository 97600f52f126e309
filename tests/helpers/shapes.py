"""Checks a raw JSON response body against a botocore output shape, as strictly as AWS answers.

`shape_problems(shape, value)` lists every way the value breaks the model: a missing required
member, a member the model does not have, a null (AWS leaves absent members out), a wrong JSON
type, an enum value outside the model, a timestamp that is not epoch seconds. An empty list means
the body is what a strict SDK expects.
"""

from __future__ import annotations

from typing import Any

from botocore.model import Shape

# Epoch seconds between 2000-01-01 and 2100-01-01: anything else is probably milliseconds or a string.
_EPOCH_SECONDS = (946_684_800, 4_102_444_800)


def shape_problems(shape: Shape, value: Any, path: str = "") -> list[str]:
    where = path or "<root>"
    kind = shape.type_name
    if kind == "structure":
        return _structure_problems(shape, value, path)
    if kind == "list":
        if not isinstance(value, list):
            return [f"{where}: expected an array, got {type(value).__name__}"]
        return [problem for index, item in enumerate(value) for problem in shape_problems(shape.member, item, f"{path}[{index}]")]
    if kind == "map":
        if not isinstance(value, dict):
            return [f"{where}: expected an object (map), got {type(value).__name__}"]
        return [problem for key, item in value.items() for problem in shape_problems(shape.value, item, f"{path}[{key!r}]")]
    return _scalar_problems(shape, value, where)


def _structure_problems(shape: Shape, value: Any, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path or '<root>'}: expected an object, got {type(value).__name__}"]
    problems = [
        f"{_join(path, name)}: required member missing" for name in shape.required_members if name not in value
    ]
    for name, item in value.items():
        if name not in shape.members:
            problems.append(f"{_join(path, name)}: not a member of {shape.name}")
        elif item is None:
            problems.append(f"{_join(path, name)}: null (AWS leaves an absent member out)")
        else:
            problems += shape_problems(shape.members[name], item, _join(path, name))
    return problems


def _scalar_problems(shape: Shape, value: Any, where: str) -> list[str]:
    kind = shape.type_name
    if kind == "string":
        if not isinstance(value, str):
            return [f"{where}: expected a string, got {value!r}"]
        enum = getattr(shape, "enum", None)
        if enum and value not in enum:
            return [f"{where}: {value!r} is not one of {list(enum)}"]
        return []
    if kind in ("integer", "long"):
        return [] if isinstance(value, int) and not isinstance(value, bool) else [f"{where}: expected an integer, got {value!r}"]
    if kind in ("float", "double"):
        return [] if isinstance(value, (int, float)) and not isinstance(value, bool) else [f"{where}: expected a number, got {value!r}"]
    if kind == "boolean":
        return [] if isinstance(value, bool) else [f"{where}: expected a boolean, got {value!r}"]
    if kind == "timestamp":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return [f"{where}: a timestamp is sent as epoch seconds (a JSON number), got {value!r}"]
        low, high = _EPOCH_SECONDS
        return [] if low <= value <= high else [f"{where}: {value} is not plausible epoch seconds"]
    if kind == "blob":
        return [] if isinstance(value, str) else [f"{where}: a blob is sent as a base64 string, got {value!r}"]
    return [f"{where}: unknown shape type {kind}"]


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
