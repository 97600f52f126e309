"""The rules a loaded record must satisfy, the API's own: what a state directory or a snapshot
holds was written by the API, so anything else was damaged or planted, and is refused (with the
field named) before anything changes, rather than installed and failing later, or at every start.

Each check answers the value or raises `RecordError` ("<where>: <what is wrong>"), a ValueError.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Collection

from sfn_emulator.clock.virtual_clock import MODES
from sfn_emulator.service.errors import ApiError
from sfn_emulator.service.names import check_name

# arn:PARTITION:states:REGION:ACCOUNT:KIND:NAME[...]: the ARNs the service writes.
_ARN = re.compile(r"^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:(?P<kind>[a-zA-Z]+):\S+$")


class RecordError(ValueError):
    """A record that breaks the API's rules; the message names the field."""


def arn(value: Any, where: str, *kinds: str) -> str:
    match = _ARN.match(value) if isinstance(value, str) else None
    if match is None or (kinds and match["kind"] not in kinds):
        raise RecordError(f"{where}: {value!r:.100} is not a Step Functions {'/'.join(kinds) or ''} ARN")
    return value


def name(value: Any, where: str) -> str:
    try:
        return check_name(string(value, where))
    except ApiError as error:
        raise RecordError(f"{where}: {error}") from None


def one_of(value: Any, allowed: Collection[str], where: str) -> str:
    if value not in allowed:
        raise RecordError(f"{where}: {value!r:.100} is not one of {', '.join(sorted(allowed))}")
    return value


def string(value: Any, where: str, *, optional: bool = False) -> Any:
    if isinstance(value, str) or (optional and value is None):
        return value
    raise RecordError(f"{where}: expected a string, found {value!r:.100}")


def count(value: Any, where: str, *, least: int = 0, optional: bool = False) -> Any:
    if optional and value is None:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value >= least:
        return value
    raise RecordError(f"{where}: expected a whole number of at least {least}, found {value!r:.100}")


def tags(value: Any, where: str) -> dict[str, str]:
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return dict(value)
    raise RecordError(f"{where}: expected tags (an object of strings), found {value!r:.100}")


def time(value: Any, where: str, *, optional: bool = False) -> Any:
    """A loaded time ({"$time": ISO-8601} in the JSON) with its zone."""
    if optional and value is None:
        return value
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value
    raise RecordError(f"{where}: expected a time ({{\"$time\": ISO-8601 with its zone}}), found {value!r:.100}")


def clock(document: Any) -> tuple[datetime, str] | None:
    """(time, mode) of a stored clock ({"time", "mode"}), or None when there is none."""
    if document is None:
        return None
    if not isinstance(document, dict):
        raise RecordError(f"clock: expected an object with time and mode, found {document!r:.100}")
    return time(document.get("time"), "clock.time"), one_of(document.get("mode"), MODES, "clock.mode")
