"""The JSON data functions: States.StringToJson, States.JsonToString and States.JsonMerge."""

from __future__ import annotations

import json

from sfn_emulator.asl.intrinsics.arguments import Arguments, string_argument
from sfn_emulator.asl.intrinsics.errors import InvalidArguments
from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.model import JSON


def _reject_constant(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")


def string_to_json(args: Arguments) -> JSON:
    text = string_argument(args[0])
    if not text.strip():
        return None  # as recorded on AWS for "" and " "
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except ValueError:
        raise InvalidArguments from None


def json_to_string(args: Arguments) -> JSON:
    return compact_json(args[0])


def json_merge(args: Arguments) -> JSON:
    """Shallow merge, the second object's keys winning. The third argument is the deep-merge flag, and
    AWS's documentation says it must be the boolean `false` (only shallow merging exists): `true`, and
    anything that is no boolean (the text "false" included), is refused."""
    first, second, deep = args
    if not isinstance(first, dict) or not isinstance(second, dict) or deep is not False:
        raise InvalidArguments
    return {**first, **second}
