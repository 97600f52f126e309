"""The AWS Step Functions JSON 1.0 wire protocol over HTTP (Flask app, waitress server).

Its parts are imported on first use, so that what needs one piece does not pay for Flask and waitress.
(Request decoding and the API errors live below every layer, in `sfn_emulator.protocol`.)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sfn_emulator.wire.app import HEALTH_PATH, OperationHandler, create_app
    from sfn_emulator.wire.server import HttpServer

_LAZY_EXPORTS = {
    "HEALTH_PATH": "sfn_emulator.wire.app",
    "OperationHandler": "sfn_emulator.wire.app",
    "create_app": "sfn_emulator.wire.app",
    "HttpServer": "sfn_emulator.wire.server",
}
__all__ = ["HEALTH_PATH", "HttpServer", "OperationHandler", "create_app"]


def __getattr__(name: str) -> Any:
    if name in _LAZY_EXPORTS:
        return getattr(importlib.import_module(_LAZY_EXPORTS[name]), name)
    raise AttributeError(f"module 'sfn_emulator.wire' has no attribute {name!r}")
