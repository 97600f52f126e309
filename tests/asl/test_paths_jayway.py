"""The JSONPath evaluator agrees with Jayway JsonPath, the implementation AWS uses, on the public
json-path-comparison corpus (fixtures/paths/jayway.json: its queries and documents with the
results Jayway gives; the fixture names the project's commit and Jayway's version).

Where Jayway refuses a query (InvalidPathException) the path is refused when it is compiled, as AWS
refuses an invalid path when the definition is created; where Jayway throws PathNotFoundException
evaluating raises PathNotFound. fixtures/paths/jayway_divergences.json lists where AWS's rule
differs from Jayway's (the emulator follows AWS) and what is not implemented yet (strict xfails).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from helpers.scopes import FixedScope

from sfn_emulator.asl.paths import InvalidPath, PathNotFound, compile_path

FIXTURES = FIXTURES_ROOT / "paths"
CORPUS = json.loads((FIXTURES / "jayway.json").read_text(encoding="utf-8"))
DIVERGENCES = json.loads((FIXTURES / "jayway_divergences.json").read_text(encoding="utf-8"))


def _cases() -> list[Any]:
    params = []
    for case in CORPUS["cases"]:
        expect = case["expect"]
        marks = []
        if case["id"] in DIVERGENCES["aws"]:
            expect = DIVERGENCES["aws"][case["id"]]["expect"]
        elif case["id"] in DIVERGENCES["open"]:
            marks = [pytest.mark.xfail(strict=True, reason=DIVERGENCES["open"][case["id"]])]
        params.append(pytest.param(case["selector"], case["document"], expect, id=case["id"], marks=marks))
    return params


def _canonical(values: list[Any]) -> list[str]:
    return sorted(json.dumps(value, sort_keys=True) for value in values)


@pytest.mark.parametrize(("selector", "document", "expect"), _cases())
def test_agrees_with_jayway(selector: str, document: Any, expect: dict[str, Any]) -> None:
    if expect.get("invalid"):
        with pytest.raises(InvalidPath):
            compile_path(selector)
        return
    path = compile_path(selector)
    if expect.get("not_found"):
        with pytest.raises(PathNotFound):
            path.evaluate(document, FixedScope())
        return
    result = path.evaluate(document, FixedScope())
    if expect.get("unordered"):
        assert _canonical(result) == _canonical(expect["value"])
    else:
        assert result == expect["value"]


def test_every_divergence_names_a_corpus_case() -> None:
    ids = {case["id"] for case in CORPUS["cases"]}
    assert set(DIVERGENCES["aws"]) | set(DIVERGENCES["open"]) <= ids
    assert not set(DIVERGENCES["aws"]) & set(DIVERGENCES["open"])
