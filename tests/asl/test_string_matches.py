"""`StringMatches` patterns (`*` any run of characters, `\\` escaping the next one) match as the
equivalent anchored regular expression does, without backtracking: a pattern with many `*`s on a long
text is decided by one left-to-right scan per piece."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from sfn_emulator.asl.choice import _wildcard_pattern


def _as_regex(pattern: str) -> re.Pattern[str]:
    parts, escaped = [], False
    for character in pattern:
        if escaped:
            parts.append(re.escape(character))
            escaped = False
        elif character == "\\":
            escaped = True
        else:
            parts.append(".*" if character == "*" else re.escape(character))
    if escaped:
        parts.append(re.escape("\\"))
    return re.compile("".join(parts), re.DOTALL)


@settings(max_examples=400, deadline=None)
@given(pattern=st.text(alphabet="ab*\\", max_size=8), text=st.text(alphabet="ab*\\\n", max_size=10))
def test_a_pattern_matches_as_its_anchored_regular_expression(pattern: str, text: str) -> None:
    assert _wildcard_pattern(pattern).matches(text) == (_as_regex(pattern).fullmatch(text) is not None)


def test_many_wildcards_on_a_long_text_are_decided_by_a_scan() -> None:
    """As a backtracking regex this pair takes about 10**20 steps; here a few scans."""
    pattern = _wildcard_pattern("*a" * 12 + "*b")
    assert not pattern.matches("a" * 50_000)
    assert pattern.matches("a" * 50_000 + "b")
