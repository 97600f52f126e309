"""Headless Chromium (Debian's `chromium` package) for tests of pages: the DOM after scripts ran
(`rendered_dom`), or a page driven by Playwright for Python (`playwright_chromium`), pointed at that
Chromium: Playwright's own browser downloads are never used.

CI installs Chromium (`.ci/run`); on a machine without it these tests are skipped, except under
CI (`CI=true`), where a missing browser fails them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

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


@contextmanager
def playwright_chromium() -> Iterator[Any]:
    """A Playwright `Browser` on the system's Chromium; skips (fails under CI) where either is missing."""
    binary = chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("Playwright is missing: pip install -e '.[test]' installs it")
        pytest.skip("Playwright for Python is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=binary, headless=True,
                                             args=[flag for flag in FLAGS if flag != "--headless"])
        try:
            yield browser
        finally:
            browser.close()
