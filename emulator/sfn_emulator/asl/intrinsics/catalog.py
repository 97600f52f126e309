"""The library: every intrinsic function by its name, with its argument counts."""

from __future__ import annotations

from typing import Mapping

from sfn_emulator.asl.intrinsics import arrays, encoding, json_data, math_ops, text
from sfn_emulator.asl.intrinsics.arguments import Function

FUNCTIONS: Mapping[str, Function] = {
    function.name: function
    for function in (
        Function("States.Format", 1, None, text.format_string),
        Function("States.StringToJson", 1, 1, json_data.string_to_json),
        Function("States.JsonToString", 1, 1, json_data.json_to_string),
        Function("States.Array", 0, None, arrays.array_of),
        Function("States.ArrayPartition", 2, 2, arrays.array_partition),
        Function("States.ArrayContains", 2, 2, arrays.array_contains),
        Function("States.ArrayRange", 3, 3, arrays.array_range),
        Function("States.ArrayGetItem", 2, 2, arrays.array_get_item),
        Function("States.ArrayLength", 1, 1, arrays.array_length),
        Function("States.ArrayUnique", 1, 1, arrays.array_unique),
        Function("States.Base64Encode", 1, 1, encoding.base64_encode),
        Function("States.Base64Decode", 1, 1, encoding.base64_decode),
        Function("States.Hash", 2, 2, encoding.hash_text),
        Function("States.JsonMerge", 3, 3, json_data.json_merge),
        Function("States.MathRandom", 2, 3, math_ops.math_random, draws=True),
        Function("States.MathAdd", 2, 2, math_ops.math_add),
        Function("States.StringSplit", 2, 2, text.string_split),
        Function("States.UUID", 0, None, math_ops.random_uuid, draws=True),
    )
}

FUNCTION_NAMES: frozenset[str] = frozenset(FUNCTIONS)
