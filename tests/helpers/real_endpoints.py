"""Real local endpoints for tests of `*_ENDPOINT` settings: processes and servers started by the tests.

- `moto_server_process()`: moto's standalone server (`python -m moto.server`), a second process;
- `emulator_process()`: a second sfn-emulator (`sfn-emulator serve`), a second process;
- `LambdaInvokeServer`: an HTTP server speaking Lambda's Invoke REST API
  (`POST /2015-03-31/functions/<name>/invocations`), as SAM local's `start-lambda` does, running
  Python handlers; an unknown function is answered 404 `ResourceNotFoundException` and a raised
  exception as Lambda reports a function error (`X-Amz-Function-Error: Unhandled`).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

_STARTUP_SECONDS = 60


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def moto_server_process() -> Iterator[str]:
    """moto's server on a free port; yields its URL once it answers."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + _STARTUP_SECONDS
        while True:  # polled with a bound: the server is up when it answers moto's own API
            try:
                urllib.request.urlopen(f"{url}/moto-api/data.json", timeout=2).close()
                break
            except (urllib.error.URLError, ConnectionError):
                assert process.poll() is None and time.monotonic() < deadline, "moto's server did not start"
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextmanager
def emulator_process(*arguments: str) -> Iterator[str]:
    """`sfn-emulator serve` in its own process on a free port; yields its URL from its banner."""
    process = subprocess.Popen([sys.executable, "-m", "sfn_emulator", "serve", "--port", "0", "--log-level", "WARNING",
                                *arguments], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=dict(os.environ))
    try:
        assert process.stdout is not None
        banner = next(line for line in process.stdout if "serving AWS Step Functions on" in line)
        match = re.search(r"on (http://\S+)", banner)
        assert match is not None
        yield match[1]
    finally:
        process.terminate()
        process.wait(timeout=30)


class LambdaInvokeServer:
    """Lambda's Invoke API on 127.0.0.1, answering with `handlers[name](event)`; `.url` and `.events` (received)."""

    def __init__(self, handlers: dict[str, Callable[[Any], Any]]) -> None:
        self.handlers = handlers
        self.events: list[tuple[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Invoke(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                match = re.fullmatch(r"/2015-03-31/functions/([^/]+)/invocations", self.path.split("?")[0])
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                name = urllib.request.unquote(match[1]).split(":")[-1] if match else ""
                if name not in owner.handlers:
                    self._answer(404, {"Type": "User", "message": f"Function not found: {name}"},
                                 {"x-amzn-ErrorType": "ResourceNotFoundException"})
                    return
                event = json.loads(body) if body else None
                owner.events.append((name, event))
                try:
                    self._answer(200, owner.handlers[name](event))
                except Exception as error:  # the function's failure, as Lambda reports it
                    self._answer(200, {"errorMessage": str(error), "errorType": type(error).__name__,
                                       "stackTrace": []}, {"X-Amz-Function-Error": "Unhandled"})

            def _answer(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                for key, value in {"Content-Type": "application/json", **(headers or {})}.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        return Invoke

    def __enter__(self) -> LambdaInvokeServer:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
