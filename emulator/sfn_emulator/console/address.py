"""Where the web console is served: its own module, so that the start-up banner can say so before
the console (and Flask) is loaded."""

from __future__ import annotations

CONSOLE_PATH = "/_emulator/console/"


def console_url(endpoint_url: str) -> str:
    """Where the console of the server at `endpoint_url` is (the start-up banner prints it)."""
    return endpoint_url.rstrip("/") + CONSOLE_PATH
