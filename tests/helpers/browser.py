"""Headless Chromium (Debian's `chromium` package) for tests of pages: the DOM after scripts ran.

CI installs Chromium (`.ci/run`); on a machine without it these tests are skipped, except under
CI (`CI=true`), where a missing browser fails them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def chromium() -> str:
    """The Chromium binary; skips the test where there is none (fails it under CI)."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Chromium is missing: .ci/run installs Debian's chromium package")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    return binary


def rendered_dom(url: str, *, wait_ms: int = 20000) -> str:
    """The page's DOM once its scripts ran (Chromium's virtual time lets them finish)."""
    with tempfile.TemporaryDirectory(prefix="sfn-emulator-chromium-") as profile:
        done = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", f"--virtual-time-budget={wait_ms}",
                               "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
