"""Hypothesis strategies for request bodies, drawn from botocore's input shapes.

`valid_body(shape)` satisfies every constraint the model states (enums, lengths, ranges, required
members); `mangled_body(shape)` starts from one and breaks it the ways clients do: a member of the
wrong JSON type, a required member missing, a string one character too long, junk members.
"""

from __future__ import annotations

from typing import Any

from botocore.model import Shape
from hypothesis import strategies as st

# Keep generated strings short: long ones cost time and find nothing short ones do not.
_LONGEST_STRING = 24

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8)
)
any_json = st.recursive(
    json_scalars,
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(st.text(max_size=6), children, max_size=3)),
    max_leaves=8,
)


def valid_value(shape: Shape, depth: int = 0) -> st.SearchStrategy[Any]:
    kind = shape.type_name
    metadata = shape.metadata
    if kind == "structure":
        return valid_body(shape, depth + 1)
    if kind == "list":
        low = metadata.get("min", 0)
        high = min(metadata.get("max", 3), low + 3)
        return st.lists(valid_value(shape.member, depth + 1), min_size=low, max_size=high)
    if kind == "map":
        return st.dictionaries(st.text(min_size=1, max_size=8), valid_value(shape.value, depth + 1), max_size=2)
    if kind == "string":
        enum = getattr(shape, "enum", None)
        if enum:
            return st.sampled_from(list(enum))
        low = metadata.get("min", 0)
        return st.text(min_size=low, max_size=min(metadata.get("max", _LONGEST_STRING), max(low, _LONGEST_STRING)))
    if kind in ("integer", "long"):
        return st.integers(metadata.get("min", -(2**31)), metadata.get("max", 2**31 - 1))
    if kind in ("float", "double"):
        return st.floats(metadata.get("min", -1e9), metadata.get("max", 1e9), allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    return any_json


def valid_body(shape: Shape, depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """Required members always, optional ones sometimes (none below a few levels of nesting)."""
    required = set(shape.required_members)
    members = {name: valid_value(member, depth) for name, member in shape.members.items() if name in required}
    optional = {
        name: valid_value(member, depth) for name, member in shape.members.items() if name not in required and depth < 3
    }
    return st.fixed_dictionaries(members, optional=optional)


@st.composite
def mangled_body(draw: st.DrawFn, shape: Shape) -> dict[str, Any]:
    body = draw(valid_body(shape))
    names = list(shape.members)
    if not names:
        return {**body, draw(st.text(max_size=6)): draw(any_json)}
    name = draw(st.sampled_from(names))
    member = shape.members[name]
    how = draw(st.sampled_from(["wrong type", "missing", "too long", "junk member"]))
    if how == "wrong type":
        body[name] = draw(any_json)
    elif how == "missing":
        body.pop(name, None)
    elif how == "too long" and member.type_name == "string" and "max" in member.metadata:
        body[name] = "x" * (member.metadata["max"] + 1)
    else:
        body[draw(st.text(max_size=6))] = draw(any_json)
    return body
