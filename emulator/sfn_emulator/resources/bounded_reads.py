"""Every body the emulator reads from somewhere it does not control (an HTTP Task's API, an endpoint of
`*_ENDPOINT`, a document a definition names by URL or file) is read here, within a size limit and a
total deadline.

- Size: the body is read in chunks and refused as soon as it passes `limit_bytes` (a declared
  Content-Length over the limit is refused before a byte is read), so an endpoint streaming forever
  costs one chunk of memory, not the machine's.
- Time: one deadline for the whole exchange (connect, headers, every byte of the body, every
  redirect), not a timeout per read: a watchdog shuts the socket down when it passes, so an endpoint
  dripping a byte every few seconds cannot hold the caller's thread beyond it.
- Redirects: followed only when the caller allows them, only to http(s) URLs (another scheme answers
  as the redirect itself), at most `MAX_REDIRECTS` hops. A hop to another origin (scheme, host or
  port) sends `foreign`, the request without the caller's credentials, never the request itself.
- Files: regular files only (no device, FIFO or socket, whose reads never end), read up to the limit.
"""

from __future__ import annotations

import os
import socket
import stat
import threading
import time
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:
    import urllib.request

MAX_REDIRECTS = 10  # urllib's own bound, which the emulator's reads followed before
CHUNK_BYTES = 1 << 16
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_SCHEMES = ("http", "https")
_CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})


class ReadLimitExceeded(ValueError):
    """The body is larger than the reader's limit."""


class ReadDeadlineExceeded(TimeoutError):
    """The exchange did not end within its deadline."""


class HttpAnswer(Struct):
    """An HTTP answer read whole: its status, reason, headers (in order, repeated names kept) and body."""

    status: int
    reason: str
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.headers if key.lower() == name.lower()), None)


def http_exchange(request: urllib.request.Request, *, limit_bytes: int, deadline_seconds: float,
                  connect_seconds: float | None = None, follow_redirects: bool = False,
                  foreign: urllib.request.Request | None = None) -> HttpAnswer:
    """Send `request` and read its answer whatever its status, within `limit_bytes` and `deadline_seconds`
    in all (`connect_seconds`: a shorter bound on each connect). `foreign`: what a redirect to another
    origin sends instead (default: `request` without its Authorization, Proxy-Authorization and Cookie
    headers). Raises ReadLimitExceeded, ReadDeadlineExceeded, or OSError when no answer comes."""
    import urllib.request

    deadline = _Deadline(deadline_seconds, connect_seconds)
    origin = _origin(request.full_url)
    current = request
    try:
        for _ in range(MAX_REDIRECTS + 1):
            answer = _one_exchange(current, limit_bytes, deadline)
            location = answer.header("Location")
            if not follow_redirects or answer.status not in _REDIRECTS or not location:
                return answer
            target = urllib.parse.urljoin(current.full_url, location)
            if urllib.parse.urlsplit(target).scheme not in _SCHEMES:
                return answer  # never followed: ftp:, file:, data:, ... answer as the redirect itself
            model = current if _origin(target) == origin else (foreign or _without_credentials(request))
            method, data = model.get_method(), model.data
            if answer.status == 303 and method != "HEAD" or answer.status in (301, 302) and method == "POST":
                method, data = "GET", None  # as browsers and HTTP libraries do
            headers = {name: value for name, value in model.header_items()
                       if data is not None or name.lower() != "content-type"}
            current = urllib.request.Request(target, data=data, headers=headers, method=method)
        return answer
    finally:
        deadline.cancel()


def read_file(path: Path, *, limit_bytes: int) -> bytes:
    """The bytes of a regular file, refused when it is larger than `limit_bytes`; anything else that has a
    path (a device, a FIFO, a socket, a directory) is refused without a read. Raises OSError or
    ReadLimitExceeded."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(f"{path} is not a regular file")
        with os.fdopen(descriptor, "rb", closefd=False) as stream:
            data = stream.read(limit_bytes + 1)
    finally:
        os.close(descriptor)
    if len(data) > limit_bytes:
        raise ReadLimitExceeded(f"{path} is larger than {limit_bytes} bytes")
    return data


class _Deadline:
    """One deadline for an exchange: `remaining()` for connects, and a watchdog that shuts the open
    socket down when the time is up, ending any read blocked on it."""

    def __init__(self, seconds: float, connect_seconds: float | None = None) -> None:
        self.seconds = seconds
        self.connect_seconds = connect_seconds
        self._end = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self.expired = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        left = self._end - time.monotonic()
        if left <= 0 or self.expired:
            raise self.exceeded()
        return left

    def exceeded(self) -> ReadDeadlineExceeded:
        return ReadDeadlineExceeded(f"no complete answer within {self.seconds:g} seconds")

    def watch(self, sock: socket.socket | None) -> None:
        with self._lock:
            self._socket = sock
            if self.expired and sock is not None:
                _shut(sock)

    def cancel(self) -> None:
        self._timer.cancel()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            if self._socket is not None:
                _shut(self._socket)


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed


def _one_exchange(request: urllib.request.Request, limit_bytes: int, deadline: _Deadline) -> HttpAnswer:
    parts = urllib.parse.urlsplit(request.full_url)
    if parts.scheme not in _SCHEMES or not parts.hostname:
        raise OSError(f"only http(s) URLs are fetched, not {request.full_url!r}")
    import http.client  # (with the email package it parses headers by: on the first exchange)

    timeout = deadline.remaining()
    if deadline.connect_seconds is not None:
        timeout = min(timeout, deadline.connect_seconds)
    if parts.scheme == "https":
        import ssl

        connection: http.client.HTTPConnection = http.client.HTTPSConnection(
            parts.hostname, parts.port, timeout=timeout, context=ssl.create_default_context())
    else:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.connect()
        connection.sock.settimeout(deadline.remaining())  # reads may take the rest (the watchdog ends them)
        deadline.watch(connection.sock)
        target = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
        connection.request(request.get_method(), target, body=request.data, headers=dict(request.header_items()))
        response = connection.getresponse()
        declared = response.getheader("Content-Length")
        if declared is not None and declared.isdigit() and int(declared) > limit_bytes:
            raise ReadLimitExceeded(f"the answer of {request.full_url} declares {declared} bytes, over {limit_bytes}")
        chunks: list[bytes] = []
        size = 0
        while chunk := response.read(CHUNK_BYTES):
            size += len(chunk)
            if size > limit_bytes:
                raise ReadLimitExceeded(f"the answer of {request.full_url} is larger than {limit_bytes} bytes")
            chunks.append(chunk)
        if deadline.expired:  # the watchdog's shutdown ends a read as the end of the body would
            raise deadline.exceeded()
        return HttpAnswer(response.status, response.reason, list(response.getheaders()), b"".join(chunks))
    except (OSError, http.client.HTTPException) as fault:
        if deadline.expired:
            raise deadline.exceeded() from None
        raise fault if isinstance(fault, OSError) else ConnectionError(f"{type(fault).__name__}: {fault}") from None
    finally:
        deadline.watch(None)
        connection.close()


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or default


def _without_credentials(request: urllib.request.Request) -> urllib.request.Request:
    import urllib.request

    headers = {name: value for name, value in request.header_items() if name.lower() not in _CREDENTIAL_HEADERS}
    return urllib.request.Request(request.full_url, data=request.data, headers=headers, method=request.get_method())
