"""The AWS Step Functions JSON 1.0 wire protocol over HTTP (Flask app, waitress server)."""

from sfn_emulator.wire.app import HEALTH_PATH, ControlPlane, create_app
from sfn_emulator.wire.server import HttpServer

__all__ = ["HEALTH_PATH", "ControlPlane", "HttpServer", "create_app"]
