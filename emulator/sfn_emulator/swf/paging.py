"""SWF's paging: `maximumPageSize` (1000 at most, the default), `reverseOrder`, and an opaque
`nextPageToken` that names where the next page starts. A token SWF did not hand out (or one of a
decision task it no longer knows) is refused with ValidationException "Invalid token", SWF's words
for a corrupt `nextPageToken`."""

from __future__ import annotations

import base64
import json
from typing import Any, Sequence, TypeVar

from sfn_emulator.swf.faults import SwfValidationException

MAX_PAGE_SIZE = 1000
Item = TypeVar("Item")


def page(items: Sequence[Item], params: dict[str, Any], *, context: str = "") -> tuple[list[Item], str | None]:
    """One page of `items` (in their natural order, reversed when `reverseOrder` asks) and the token
    of the next, None on the last page. `context` travels in the token (see `token_context`)."""
    ordered = list(reversed(items)) if params.get("reverseOrder") else list(items)
    size = params.get("maximumPageSize") or MAX_PAGE_SIZE
    start = _read(params.get("nextPageToken"))["offset"] if params.get("nextPageToken") else 0
    chunk = ordered[start:start + size]
    more = start + size < len(ordered)
    return chunk, _token(start + size, context) if more else None


def invalid_token() -> SwfValidationException:
    return SwfValidationException("Invalid token")


def token_context(token: str) -> str:
    return _read(token)["context"]


def _token(offset: int, context: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset, "context": context}).encode()).decode()


def _read(token: str) -> dict[str, Any]:
    try:
        content = json.loads(base64.urlsafe_b64decode(token.encode()))
    except (ValueError, TypeError):
        raise invalid_token() from None
    if (not isinstance(content, dict) or not isinstance(content.get("offset"), int) or content["offset"] < 0
            or not isinstance(content.get("context"), str)):
        raise invalid_token()
    return content
