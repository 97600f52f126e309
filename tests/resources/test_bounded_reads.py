"""The bounded reader every body the emulator reads goes through: a size limit, one deadline for the
whole exchange, redirects that never carry credentials to another origin, and files that are regular
files. Against a real local server answering as an adversary would (tests/helpers/hostile_http.py)."""

from __future__ import annotations

import os
import threading
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from helpers.hostile_http import HostileServer

from sfn_emulator.resources.bounded_reads import (
    MAX_REDIRECTS,
    ReadDeadlineExceeded,
    ReadLimitExceeded,
    http_exchange,
    read_file,
)

LIMIT = 256 * 1024
DEADLINE = 1.0  # wall seconds: only a never-ending answer reaches it


def redirect(server: HostileServer, to: str, status: int = 302) -> str:
    return f"{server.url}/redirect?status={status}&to={urllib.parse.quote(to, safe='')}"


def get(url: str, **options: object) -> object:
    request = urllib.request.Request(url, headers={"Authorization": "Basic c2VjcmV0", "X-Api-Key": "s3cret"})
    return http_exchange(request, limit_bytes=LIMIT, deadline_seconds=options.pop("deadline", 60.0),  # type: ignore[arg-type]
                         **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("path", ["/forever", "/huge"], ids=["streams-forever", "declares-100MB"])
def test_a_body_over_the_limit_is_refused_not_read(hostile_server: HostileServer, path: str) -> None:
    with pytest.raises(ReadLimitExceeded):
        get(hostile_server.url + path)


def test_a_drip_ends_at_the_deadline_for_the_whole_exchange(hostile_server: HostileServer) -> None:
    with pytest.raises(ReadDeadlineExceeded):
        get(hostile_server.url + "/drip", deadline=DEADLINE)


def test_an_answer_within_the_bounds_is_read_whole(hostile_server: HostileServer) -> None:
    answer = get(hostile_server.url + "/small")
    assert (answer.status, answer.body, answer.header("content-type")) == (200, b'{"ok": true}', "application/json")


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_origin_sends_no_credentials(hostile_server: HostileServer, other_origin_server: HostileServer,
                                                           status: int) -> None:
    landing = f"/landing-{status}"
    answer = get(redirect(hostile_server, other_origin_server.url + landing, status), follow_redirects=True)
    assert answer.status == 200
    [received] = other_origin_server.received(landing)
    assert "authorization" not in received["headers"]
    assert received["headers"]["x-api-key"] == "s3cret"  # what the caller did not name as a secret goes on


def test_a_redirect_to_another_origin_sends_what_the_caller_says(hostile_server: HostileServer, other_origin_server: HostileServer) -> None:
    foreign = urllib.request.Request("http://unused.invalid/", headers={"User-Agent": "bare"})
    get(redirect(hostile_server, other_origin_server.url + "/landing-foreign"), follow_redirects=True, foreign=foreign)
    [received] = other_origin_server.received("/landing-foreign")
    assert "x-api-key" not in received["headers"] and "authorization" not in received["headers"]
    assert received["headers"]["user-agent"] == "bare"


def test_a_redirect_within_the_origin_keeps_the_request(hostile_server: HostileServer) -> None:
    get(redirect(hostile_server, "/landing-same"), follow_redirects=True)
    [received] = hostile_server.received("/landing-same")
    assert received["headers"]["authorization"] == "Basic c2VjcmV0"


@pytest.mark.parametrize("target", ["ftp://127.0.0.1/file", "file:///etc/passwd", "data:,hello"])
def test_a_redirect_to_another_scheme_is_the_answer_itself(hostile_server: HostileServer, target: str) -> None:
    answer = get(redirect(hostile_server, target), follow_redirects=True)
    assert (answer.status, answer.header("location")) == (302, target)


def test_redirects_are_followed_only_when_asked(hostile_server: HostileServer) -> None:
    assert get(redirect(hostile_server, "/landing-unasked")).status == 302
    assert hostile_server.received("/landing-unasked") == []


def test_a_redirect_loop_ends_with_the_redirect(hostile_server: HostileServer) -> None:
    url = hostile_server.url + "/loop"
    for _ in range(MAX_REDIRECTS + 3):
        url = redirect(hostile_server, url)
    assert get(url, follow_redirects=True).status == 302


def test_a_regular_file_within_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b"[]")
    assert read_file(path, limit_bytes=LIMIT) == b"[]"
    path.write_bytes(b" " * (LIMIT + 1))
    with pytest.raises(ReadLimitExceeded):
        read_file(path, limit_bytes=LIMIT)


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_what_is_not_a_regular_file_is_refused_without_a_read(kind: str, tmp_path: Path) -> None:
    """A FIFO without a writer and /dev/zero would block or never end."""
    if kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
    else:
        path = Path("/dev/zero") if kind == "device" else tmp_path
    with pytest.raises(OSError, match="not a regular file"):
        read_file(path, limit_bytes=LIMIT)


def test_a_connect_bound_does_not_bound_the_wait_for_the_answer() -> None:
    """`connect_seconds` bounds connecting only: an answer that comes later, within the deadline, is read."""
    server = HostileServer()
    server.held_body = b'{"late": true}'
    threading.Timer(1.0, server.release.set).start()  # well after the connect bound below
    try:
        answer = http_exchange(urllib.request.Request(server.url + "/held"), limit_bytes=LIMIT,
                               deadline_seconds=120.0, connect_seconds=0.2)
    finally:
        server.close()
    assert (answer.status, answer.body) == (200, b'{"late": true}')
