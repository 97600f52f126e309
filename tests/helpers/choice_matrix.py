"""The Choice operator × input value table (fixtures/choice/value_matrix.json), expanded into
checks: one rule form (literal, `...Path`, or `...Path` with the sides swapped) with what it gives for
every value of the table. Shared by the in-process and the HTTP tests."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from helpers.paths import FIXTURES_ROOT

TABLE = json.loads((FIXTURES_ROOT / "choice" / "value_matrix.json")
                   .read_text(encoding="utf-8"))
VALUES: dict[str, Any] = TABLE["values"]
MISSING = TABLE["missing"]
# The relation that holds for (b, a) when the named one holds for (a, b).
MIRRORED = {"Equals": "Equals", "LessThan": "GreaterThan", "GreaterThan": "LessThan",
            "LessThanEquals": "GreaterThanEquals", "GreaterThanEquals": "LessThanEquals"}
FAMILIES = ("String", "Numeric", "Timestamp", "Boolean")


@dataclass(frozen=True)
class Check:
    """A rule over `$.v` (the value under test) and `$.w` (the operand), and the values it holds for."""

    name: str
    rule: dict[str, Any]
    operand: Any  # the value at $.w
    holds_for: frozenset[str]
    variable: str  # the path the rule reads the value under test with ($.v or, swapped, the comparand)

    def expected(self) -> dict[str, bool]:
        return {name: name in self.holds_for for name in VALUES}

    def input_for(self, value_name: str) -> dict[str, Any]:
        return {"v": VALUES[value_name], "w": self.operand}


def _expand(names: list[str]) -> frozenset[str]:
    expanded: set[str] = set()
    for name in names:
        if name.startswith("@"):
            expanded |= _expand(TABLE["groups"][name[1:]])
        else:
            assert name in VALUES, name
            expanded.add(name)
    return frozenset(expanded)


def _split(operator: str) -> tuple[str, str]:
    family = next(prefix for prefix in FAMILIES if operator.startswith(prefix))
    return family, operator.removeprefix(family)


def _label(operand: Any) -> str:
    return json.dumps(operand, ensure_ascii=True)


def checks() -> list[Check]:
    rows = TABLE["comparisons"]
    by_key = {(row["operator"], _label(row["operand"])): _expand(row["true_for"]) for row in rows}
    found: list[Check] = []
    for row in rows:
        operator, operand, holds = row["operator"], row["operand"], by_key[(row["operator"], _label(row["operand"]))]
        label = f"{operator} {_label(operand)}"
        found.append(Check(label, {"Variable": "$.v", operator: operand}, operand, holds, "$.v"))
        found.append(Check(f"{label} as {operator}Path", {"Variable": "$.v", f"{operator}Path": "$.w"},
                           operand, holds, "$.v"))
        family, relation = _split(operator)
        mirrored = by_key[(f"{family}{MIRRORED[relation]}", _label(operand))]
        found.append(Check(f"{label} as {operator}Path, sides swapped", {"Variable": "$.w", f"{operator}Path": "$.v"},
                           operand, mirrored, "$.w"))
    for row in TABLE["patterns"]:
        found.append(Check(f"{row['operator']} {_label(row['operand'])}", {"Variable": "$.v", row["operator"]: row["operand"]},
                           None, _expand(row["true_for"]), "$.v"))
    for row in TABLE["type_tests"]:
        holds = _expand(row["true_for"])
        for flag in (True, False):
            found.append(Check(f"{row['operator']} {_label(flag)}", {"Variable": "$.v", row["operator"]: flag},
                               None, holds if flag else frozenset(VALUES) - holds, "$.v"))
    return found


def missing_cases() -> list[tuple[str, dict[str, Any], dict[str, Any], Any]]:
    """(name, rule, input, expectation) where the Variable, or a ...Path comparand, selects nothing.
    The expectation is a boolean for IsPresent, else the path whose absence fails the state."""
    cases: list[tuple[str, dict[str, Any], dict[str, Any], Any]] = []
    for check in checks():
        operator = next(key for key in check.rule if key != "Variable")
        comparand = check.rule[operator] if operator.endswith("Path") else None
        without_variable = {"v": VALUES["one"], "w": check.operand}
        del without_variable[check.variable[2:]]
        expectation = (not check.rule[operator]) if operator == "IsPresent" else check.variable
        cases.append((f"{check.name}, Variable missing", check.rule, without_variable, expectation))
        if comparand is not None:
            only_variable = {check.variable[2:]: check.operand if check.variable == "$.w" else VALUES["one"]}
            cases.append((f"{check.name}, comparand missing", check.rule, only_variable, comparand))
    return cases


def missing_cause(path: str) -> str:
    return MISSING["cause"].format(path=path)
