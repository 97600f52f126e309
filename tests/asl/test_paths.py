"""JSONPath evaluation as Step Functions does it: table-driven from fixtures/paths/."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from helpers.scopes import FixedScope

from sfn_emulator.asl.paths import (
    InvalidPath,
    PathNotFound,
    compile_path,
    compile_reference_path,
    compile_result_path,
)

FIXTURES = FIXTURES_ROOT / "paths"
EVALUATE = json.loads((FIXTURES / "evaluate.json").read_text())["cases"]
COMPILE = json.loads((FIXTURES / "compile.json").read_text())


@pytest.mark.parametrize("case", EVALUATE, ids=[case["description"] for case in EVALUATE])
def test_evaluate(case: dict[str, Any]) -> None:
    scope = FixedScope(case.get("context", {}), case.get("variables", {}))
    value = case["input"]
    before = copy.deepcopy(value)
    path = compile_path(case["path"])
    if "not_found" in case["expect"]:
        with pytest.raises(PathNotFound) as raised:
            path.evaluate(value, scope)
        assert raised.value.path == case["path"]
        assert f"Invalid path '{raised.value.path}' : {raised.value}" == case["expect"]["not_found"]
    else:
        assert path.evaluate(value, scope) == case["expect"]["value"]
    assert value == before


@pytest.mark.parametrize("case", COMPILE["valid"], ids=[case["path"] for case in COMPILE["valid"]])
def test_compile_valid(case: dict[str, Any]) -> None:
    path = compile_path(case["path"])
    assert path.text == case["path"]
    assert path.is_definite is case["definite"]
    if case["reference"]:
        assert compile_reference_path(case["path"]).text == case["path"]
    else:
        with pytest.raises(InvalidPath):
            compile_reference_path(case["path"])


@pytest.mark.parametrize("case", COMPILE["invalid"], ids=[case["path"] or "<empty>" for case in COMPILE["invalid"]])
def test_compile_invalid(case: dict[str, Any]) -> None:
    for compiler in (compile_path, compile_reference_path, compile_result_path):
        with pytest.raises(InvalidPath) as raised:
            compiler(case["path"])
        assert f"'{case['path']}'" in str(raised.value)
        assert case["problem"] in str(raised.value)


@pytest.mark.parametrize("case", COMPILE["not_result_paths"], ids=[case["path"] for case in COMPILE["not_result_paths"]])
def test_not_a_result_path(case: dict[str, Any]) -> None:
    with pytest.raises(InvalidPath) as raised:
        compile_result_path(case["path"])
    assert case["problem"] in str(raised.value)


def test_invalid_path_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        compile_path("nope")


def test_the_same_text_compiles_once() -> None:
    assert compile_path("$.cached.path") is compile_path("$.cached.path")
    assert compile_result_path("$.cached") is compile_result_path("$.cached")


def test_a_definite_path_returns_the_value_itself_not_a_copy() -> None:
    value = {"a": {"b": [1]}}
    assert compile_path("$.a").evaluate(value, FixedScope()) is value["a"]


def test_unknown_variable_is_reported_by_name() -> None:
    with pytest.raises(PathNotFound) as raised:
        compile_path("$missing.a").evaluate({}, FixedScope())
    assert raised.value.reason == "The variable '$missing' is not defined"
