"""Opaque `nextToken` pagination that survives items being added or removed between pages.

A token names the sort key of the last item handed out and the listing it belongs to; the next
page starts after that key, found by bisection in the sorted listing, so a page costs its own size
and a logarithm, not a scan of everything before it. A token that does not decode, or that belongs
to another listing, is refused with `InvalidToken`, as AWS refuses it; so is a token handed out
more than 24 hours ago (API reference, every List* operation: "Each pagination token expires after
24 hours. Using an expired pagination token will return an HTTP 400 InvalidToken error"), by the
emulator's clock.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
from datetime import datetime, timedelta
from typing import Any, Callable, Sequence, TypeVar, overload

from sfn_emulator.service.errors import InvalidToken

T = TypeVar("T")
SortKey = Any  # a JSON-encodable value (str, int, or a list of them) that orders the listing

DEFAULT_PAGE_SIZE = 100
TOKEN_LIFETIME = timedelta(hours=24)


def _scope_id(scope: str) -> str:
    import hashlib  # (with OpenSSL: on the first paged listing)

    return hashlib.sha256(scope.encode()).hexdigest()[:16]


def _encode(scope: str, key: SortKey, now: datetime) -> str:
    payload = json.dumps({"scope": _scope_id(scope), "after": key, "issued": now.timestamp()}, separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode()


def _decode(token: str, scope: str, now: datetime) -> SortKey:
    try:
        payload = json.loads(base64.urlsafe_b64decode(token.encode()))
    except (binascii.Error, ValueError, UnicodeError):
        payload = None
    if not isinstance(payload, dict) or payload.get("scope") != _scope_id(scope) or "after" not in payload:
        raise _invalid()
    issued = payload.get("issued")
    if not isinstance(issued, (int, float)) or now.timestamp() - issued > TOKEN_LIFETIME.total_seconds():
        raise _invalid()
    return _comparable(payload["after"])


def _invalid() -> InvalidToken:
    return InvalidToken("Invalid Token: 'Invalid token'")


def _comparable(key: SortKey) -> SortKey:
    """JSON turns tuples into lists; make decoded keys compare like the keys they came from."""
    return tuple(_comparable(part) for part in key) if isinstance(key, (list, tuple)) else key


class Reversed(Sequence[T]):
    """A newest-first view of an append-only list, as long as the list was when the view was made:
    reverse-order listings page through it without copying or sorting it."""

    __slots__ = ("_items", "_length")

    def __init__(self, items: Sequence[T]) -> None:
        self._items = items
        self._length = len(items)

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...

    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if not -self._length <= index < self._length:
            raise IndexError(index)
        return self._items[self._length - 1 - (index % self._length)]


def paginate(
    items: Sequence[T],
    key: Callable[[T], SortKey],
    *,
    scope: str,
    max_results: int | None,
    next_token: str | None,
    now: datetime,
) -> tuple[list[T], str | None]:
    """One page of `items` (sorted ascending by `key`, keys unique) and the token for the next.

    `items` may be a lazy view (anything with `len` and indexing): only the items of the page and
    the few a bisection looks at are read. `max_results` 0 or None means AWS's default page size of 100.
    `now` (the clock's) dates the token handed out, and judges the age of the one given.
    """
    start = 0
    if next_token is not None:
        after = _decode(next_token, scope, now)
        try:
            start = bisect.bisect_right(items, after, key=lambda item: _comparable(key(item)))
        except TypeError:  # a key of another kind than this listing's: not a token it handed out
            raise _invalid() from None
    size = max_results or DEFAULT_PAGE_SIZE
    page = [items[index] for index in range(start, min(start + size, len(items)))]
    more = start + size < len(items)
    return page, (_encode(scope, key(page[-1]), now) if more and page else None)
