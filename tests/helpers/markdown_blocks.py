"""The fenced code blocks of the project's Markdown (README.md, docs/*.md), as the tests that run them read them."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
DEFAULT_ENDPOINT = "http://127.0.0.1:8083"


def fenced_blocks(text: str, language: str) -> list[str]:
    """Every block fenced as ```language, in order, each exactly as written (its last newline kept)."""
    return re.findall(rf"^ *```{language}\n(.*?)^ *```", text, flags=re.S | re.M)


def doc_pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def page_blocks(language: str) -> list[tuple[str, str]]:
    """(page name, block) for every block of that language on every docs page."""
    return [(page.name, block) for page in doc_pages() for block in fenced_blocks(page.read_text(), language)]
