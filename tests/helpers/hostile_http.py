"""A local HTTP server that answers as an adversary would: a body that never ends, a byte now and then,
a huge declared length, redirects to another origin and to another scheme. Each request is recorded."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DRIP_PAUSE = 0.2  # wall seconds between the bytes of a drip: an answer that never completes


class _QuietServer(ThreadingHTTPServer):
    """Clients hang up on these answers by design: that is no error worth a traceback."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


class HostileServer:
    """Paths: `/forever` streams without end, `/drip` sends a byte every DRIP_PAUSE, `/huge` declares
    100 MB, `/redirect?to=URL&status=N` redirects, `/small` answers `{"ok": true}`, `/held` answers
`held_body` once `release` is set; anything else
    answers 200 with its path as JSON. `every_path`: answer every request as that path does (an
    AWS endpoint that streams forever, say)."""

    def __init__(self, every_path: str | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self.release = threading.Event()
        self.held_body = b"[]"
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                path, _, query = self.path.partition("?")
                path = every_path or path
                owner.requests.append({"method": self.command, "path": path, "body": body,
                                       "headers": {k.lower(): v for k, v in self.headers.items()}})
                try:
                    self._answer(path, dict(part.split("=", 1) for part in query.split("&") if "=" in part))
                except OSError:
                    pass  # the client hung up, as it should

            def _answer(self, path: str, query: dict[str, str]) -> None:
                if path == "/forever":
                    self._start(200, {"Content-Type": "application/json"})
                    chunk = b" " * 65536
                    while not owner.stopping.is_set():
                        self.wfile.write(chunk)
                elif path == "/drip":
                    self._start(200, {"Content-Type": "text/plain", "Content-Length": "100000"})
                    while not owner.stopping.wait(DRIP_PAUSE):
                        self.wfile.write(b"x")
                        self.wfile.flush()
                elif path == "/huge":
                    self._start(200, {"Content-Type": "text/plain", "Content-Length": str(100 * 1024 * 1024)})
                    self.wfile.write(b"x" * 65536)
                elif path == "/redirect":
                    import urllib.parse

                    self._start(int(query.get("status", "302")), {"Location": urllib.parse.unquote(query["to"]),
                                                                   "Content-Length": "0"})
                elif path == "/held":
                    owner.release.wait()
                    self._body(owner.held_body)
                elif path == "/small":
                    self._body(b'{"ok": true}')
                else:
                    import json

                    self._body(json.dumps({"path": path}).encode())

            def _start(self, status: int, headers: dict[str, str]) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                if "Content-Length" not in headers:
                    self.send_header("Connection", "close")
                self.end_headers()

            def _body(self, data: bytes) -> None:
                self._start(200, {"Content-Type": "application/json", "Content-Length": str(len(data))})
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = _serve  # noqa: N815 - http.server's names

            def log_message(self, *args: Any) -> None:
                pass

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def received(self, path: str) -> list[dict[str, Any]]:
        return [request for request in self.requests if request["path"] == path]

    def close(self) -> None:
        self.stopping.set()
        self.release.set()
        self._server.shutdown()
        self._server.server_close()

