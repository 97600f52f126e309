"""What a server answers with: API calls at once, everything else by the full Flask app.

Importing Flask and building the full app (console, clock, insight and reset APIs, the passthrough
to other AWS services) takes longer than the rest of a server's start together. A client's first
request is almost always an API call, which needs none of it, so the front answers `POST /` for the
APIs the app serves itself straight from their JSON protocol endpoint, the very object the full app
routes `POST /` to, and hands every other request to the full app, built on first use. Once the
first API answer has been sent, a thread builds the full app, so that a later page or other service
does not wait for it.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Iterable, Iterator

from sfn_emulator.process import long_lived
from sfn_emulator.wire.app import JsonProtocolEndpoint
from sfn_emulator.wire.aws_passthrough import is_other_aws_service

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class Front:
    """WSGI app: the JSON APIs' `POST /` answered by `endpoint`, every other request by `full_app()`
    (a function that builds the full app once and returns it)."""

    def __init__(self, endpoint: JsonProtocolEndpoint, full_app: Callable[[], WSGIApp]) -> None:
        self._endpoint = endpoint
        self._own = endpoint.own_apis
        self._build_full_app = full_app
        self._full: WSGIApp | None = None
        self._warming: threading.Thread | None = None
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if (environ.get("REQUEST_METHOD") == "POST" and environ.get("PATH_INFO") == "/"
                and not is_other_aws_service(environ, self._own)):
            answer = self._endpoint.wsgi(environ, start_response)
            return answer if self._warming is not None else _ThenWarm(answer, self._warm)
        return self._full_app()(environ, start_response)

    def _full_app(self) -> WSGIApp:
        if self._full is None:
            with self._lock:
                if self._full is None:
                    self._full = self._build_full_app()
                    long_lived.loaded()  # Flask and the app stay for the server's life
        return self._full

    def close(self, timeout: float = 30.0) -> None:
        """Wait for a warm-up under way to end, so no thread of this server outlives it (a bound, never
        reached in practice: the build takes well under a second)."""
        warming = self._warming
        if warming is not None:
            warming.join(timeout)

    def _warm(self) -> None:
        """Build the full app in the background, once."""
        with self._lock:
            if self._warming is not None:
                return
            self._warming = threading.Thread(target=self._full_app, name="sfn-emulator-warm-up", daemon=True)
        self._warming.start()


class _ThenWarm:
    """An answer's body that starts the warm-up when the server has sent it (WSGI servers call
    `close()` then), so that building the full app does not delay the answer."""

    def __init__(self, body: Iterable[bytes], warm: Callable[[], None]) -> None:
        self._body = body
        self._warm = warm

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._body)

    def close(self) -> None:
        self._warm()
