"""Serving a WSGI app with waitress, a threaded production server, in the foreground or a thread.

What is served over HTTP is guarded by `LocalOnly`: requests a web page on another site could send
are refused, and only loopback hosts, the address bound, and `allowed_hosts` are answered. Calls that
wait (long polls, synchronous executions, fetches) are served in a lane of their own
(`sfn_emulator.wire.lanes`), so they cannot take the request threads from the others.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Collection

import waitress
from waitress import wasyncore

from sfn_emulator.wire.lanes import WAITING_THREADS, LaneDispatcher
from sfn_emulator.wire.local_only import LocalOnly

WsgiApp = Callable[..., Any]
WILDCARD_ADDRESSES = ("0.0.0.0", "::", "")

REQUEST_THREADS = 32  # for the calls that answer at once; the calls that wait have their own lane
CONNECTION_LIMIT = 1024  # connections waitress's loop watches; those parked by the waiting lane are not counted


def _allow_open_files(wanted: int) -> None:
    """Raise the process's soft limit on open files towards `wanted` (within the hard limit): every
    connection is one, parked or not."""
    try:
        import resource
    except ImportError:  # not on this platform
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class HttpServer:
    """A WSGI app served by waitress, bound to (host, port) at construction: port 0 yields a free
    port at once."""

    def __init__(self, app: WsgiApp, host: str, port: int, *, threads: int = REQUEST_THREADS,
                 allowed_hosts: Collection[str] = ()) -> None:
        self._sockets: dict[int, wasyncore.dispatcher] = {}
        own_hosts = () if host in WILDCARD_ADDRESSES else (host,)
        guarded = LocalOnly(app, allowed_hosts=allowed_hosts, own_hosts=own_hosts)
        _allow_open_files(CONNECTION_LIMIT + WAITING_THREADS)
        self.dispatcher = LaneDispatcher()
        self.dispatcher.set_thread_count(threads)
        self._server = waitress.create_server(
            guarded, map=self._sockets, host=host, port=port, threads=threads, asyncore_use_poll=True,
            connection_limit=CONNECTION_LIMIT, _dispatcher=self.dispatcher,
        )
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.effective_port)

    @property
    def endpoint_url(self) -> str:
        """The URL a client on this machine uses (a wildcard bind is reached through loopback)."""
        host = str(self._server.effective_host)
        if host in WILDCARD_ADDRESSES:
            host = "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    def serve(self) -> None:
        """Serve until `stop()` (from another thread) or a KeyboardInterrupt in this thread."""
        try:
            self._server.run()  # returns on KeyboardInterrupt/SystemExit too
        finally:
            self.close()

    def close(self) -> None:
        """Close the sockets and end the request threads (waiting a few seconds for busy ones)."""
        wasyncore.close_all(self._sockets)
        self._server.task_dispatcher.shutdown()

    def start(self) -> HttpServer:
        """Serve in a daemon thread."""
        self._thread = threading.Thread(target=self.serve, name="sfn-emulator-http", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Close every socket from inside the server's loop, which then ends; wait for a started thread."""
        try:
            self._server.trigger.pull_trigger(lambda: wasyncore.close_all(self._sockets))
        except OSError:
            # Another pull (a request thread finishing) woke the loop, which ran our already queued
            # close before our own write reached the trigger it closed: the server is stopping.
            pass
        if self._thread is not None:
            self._thread.join()
            self._thread = None
