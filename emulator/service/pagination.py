"""Opaque `nextToken` pagination that survives items being added or removed between pages.

A token names the sort key of the last item handed out and the listing it belongs to; the next
page starts after that key. A token that does not decode, or that belongs to another listing, is
refused with `InvalidToken`, as AWS refuses it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any, Callable, Sequence, TypeVar

from sfn_emulator.service.errors import InvalidToken

T = TypeVar("T")
SortKey = Any  # a JSON-encodable value (str, int, or a list of them) that orders the listing

DEFAULT_PAGE_SIZE = 100


def _scope_id(scope: str) -> str:
    return hashlib.sha256(scope.encode()).hexdigest()[:16]


def _encode(scope: str, key: SortKey) -> str:
    payload = json.dumps({"scope": _scope_id(scope), "after": key}, separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode()


def _decode(token: str, scope: str) -> SortKey:
    try:
        payload = json.loads(base64.urlsafe_b64decode(token.encode()))
    except (binascii.Error, ValueError, UnicodeError):
        payload = None
    if not isinstance(payload, dict) or payload.get("scope") != _scope_id(scope) or "after" not in payload:
        raise InvalidToken("Invalid Token: 'Invalid token'")
    return _comparable(payload["after"])


def _comparable(key: SortKey) -> SortKey:
    """JSON turns tuples into lists; make decoded keys compare like the keys they came from."""
    return tuple(_comparable(part) for part in key) if isinstance(key, (list, tuple)) else key


def paginate(
    items: Sequence[T],
    key: Callable[[T], SortKey],
    *,
    scope: str,
    max_results: int | None,
    next_token: str | None,
) -> tuple[list[T], str | None]:
    """One page of `items` (sorted ascending by `key`, keys unique) and the token for the next.

    `max_results` 0 or None means AWS's default page size of 100.
    """
    start = 0
    if next_token is not None:
        after = _decode(next_token, scope)
        start = next((index for index, item in enumerate(items) if _comparable(key(item)) > after), len(items))
    size = max_results or DEFAULT_PAGE_SIZE
    page = list(items[start : start + size])
    more = start + size < len(items)
    return page, (_encode(scope, key(page[-1])) if more and page else None)
