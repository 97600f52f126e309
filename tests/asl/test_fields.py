"""A field written as a literal, a `…Path` or a `{% %}` expression is one compiled field that evaluates
itself with its field's rule and AWS's text for its origin (fixtures/fields/origins.json)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from helpers.scopes import FixedScope

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.parser import parse_single_state

class ClockedScope(FixedScope):
    """JSONata expressions may read the execution's clock."""

    def now(self) -> datetime:
        return datetime(2024, 1, 1, tzinfo=timezone.utc)


CASES = json.loads((FIXTURES_ROOT / "fields" / "origins.json").read_text())["cases"]


def _field(state: Any, dotted: str) -> Any:
    for name in dotted.split("."):
        state = getattr(state, name)
    return state


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_a_field_evaluates_itself_by_its_rule(case: dict[str, Any]) -> None:
    state = parse_single_state(case["state"])
    field = _field(state, case["field"])
    value = state.io.unprocessed_input(case["input"])  # what the field reads: `$` in JSONPath, `$states` in JSONata

    if "value" in case:
        result = field.evaluate(value, ClockedScope())
        assert (result.isoformat() if isinstance(result, datetime) else result) == case["value"]
        return
    with pytest.raises(StatesError) as raised:
        field.evaluate(value, ClockedScope())
    if "error" in case:
        assert [raised.value.error, raised.value.cause] == case["error"]
    else:
        name, prefix = case["error_prefix"]
        assert raised.value.error == name and raised.value.cause.startswith(prefix)
