"""Where the tests find the repository and its one fixtures tree, whichever folder a test lives in."""

from __future__ import annotations

from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
FIXTURES_ROOT = REPOSITORY / "fixtures"
