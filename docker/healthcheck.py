"""The image's HEALTHCHECK: exit 0 when the emulator in this container answers /_emulator/health.

Python's standard library only, so the image needs no curl or wget.
"""

import json
import os
import sys
import urllib.request

port = os.environ.get("SFN_EMULATOR_PORT") or "8083"
try:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_emulator/health", timeout=4) as response:
        healthy = json.load(response).get("status") == "ok"
except (OSError, ValueError) as error:
    print(f"unhealthy: {error}", file=sys.stderr)
    sys.exit(1)
sys.exit(0 if healthy else 1)
