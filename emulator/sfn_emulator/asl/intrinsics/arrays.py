"""The array functions: States.Array, ArrayPartition, ArrayContains, ArrayRange, ArrayGetItem,
ArrayLength and ArrayUnique."""

from __future__ import annotations

from sfn_emulator.asl.intrinsics.arguments import Arguments, array_argument, text_form, truncated
from sfn_emulator.asl.intrinsics.errors import InvalidArguments
from sfn_emulator.asl.model import JSON


def array_of(args: Arguments) -> JSON:
    return list(args)


def array_partition(args: Arguments) -> JSON:
    array, size = array_argument(args[0]), truncated(args[1])
    if size <= 0:
        raise InvalidArguments
    return [array[start : start + size] for start in range(0, len(array), size)]


def array_contains(args: Arguments) -> JSON:
    array, wanted = array_argument(args[0]), text_form(args[1])
    return any(text_form(item) == wanted for item in array)


_MAX_RANGE_ITEMS = 1000


def array_range(args: Arguments) -> JSON:
    start, end, step = (truncated(arg) for arg in args)
    if step == 0:
        raise InvalidArguments
    items = range(start, end + (1 if step > 0 else -1), step)
    if len(items) > _MAX_RANGE_ITEMS:
        raise InvalidArguments
    return list(items)


def array_get_item(args: Arguments) -> JSON:
    array, index = array_argument(args[0]), truncated(args[1])
    if not array:
        return None  # AWS answers null for any index into an empty array
    if not 0 <= index < len(array):
        raise InvalidArguments
    return array[index]


def array_length(args: Arguments) -> JSON:
    return len(array_argument(args[0]))


def _json_equal(left: JSON, right: JSON) -> bool:
    """Structural equality of JSON values: key order ignored, booleans never equal to numbers."""
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_json_equal, left, right))
    if type(left) in (dict, list) or type(right) in (dict, list):
        return False
    return left == right


def array_unique(args: Arguments) -> JSON:
    unique: list[JSON] = []
    for item in array_argument(args[0]):
        if not any(_json_equal(item, seen) for seen in unique):
            unique.append(item)
    return unique
