"""YAML anchors and aliases are bounded while a document is read: a "billion laughs" (a kilobyte of
aliases of aliases standing for 10^9 values) and a document holding itself are refused with a clear
diagnostic, in every dialect that takes YAML and by every way a definition comes in; an ordinary
alias still reads as the value it names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.dialect_driver import Driver

from sfn_emulator.cli.main import main
from sfn_emulator.protocol.definition_files import MAX_YAML_VALUES

ROLE = "arn:aws:iam::123456789012:role/yaml"
# Nine levels of nine aliases: 9^9 (387,420,489) values in under a kilobyte.
LAUGHS = """a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""
SELF = "loop: &loop [*loop]\n"

# dialect: (a YAML document of it, with {extra} where the hostile keys go and {value} a value it uses)
DOCUMENTS = {
    "serverless-workflow": """id: laughs
name: Laughs
{extra}states:
  - name: A
    type: inject
    start: {{kind: default}}
    data: {{x: {value}}}
    end: {{kind: default}}
""",
    "sm4c": """id: laughs
version: "1.0"
name: Laughs
{extra}states:
  - name: A
    start: true
    enterResultHandler: '.x = {value}'
""",
}
BOMBS = {"billion-laughs": (LAUGHS, "*i", f"expand it to more than {MAX_YAML_VALUES} values"),
         "holds-itself": (SELF, "*loop", "holds itself through an alias")}


def _diagnostics(driver: Driver, definition: str) -> list[dict[str, Any]]:
    answer = driver.call("validate_state_machine_definition", definition=definition)
    assert answer["result"] == "FAIL", answer
    return answer["diagnostics"]


@pytest.mark.parametrize("dialect", sorted(DOCUMENTS))
@pytest.mark.parametrize("bomb", sorted(BOMBS))
@pytest.mark.parametrize("tagged", [False, True], ids=["recognised", "tagged"])
def test_an_alias_bomb_is_refused_when_read(dialect: str, bomb: str, tagged: bool, driver: Driver) -> None:
    extra, value, message = BOMBS[bomb]
    definition = DOCUMENTS[dialect].format(extra=extra, value=value)
    tags = [{"key": "sfn-emulator:dialect", "value": dialect}] if tagged else []
    if not tagged:
        [diagnostic] = _diagnostics(driver, definition)
        assert message in diagnostic["message"], diagnostic
    create = (driver.api.exceptions.InvalidDefinition if driver.api is not None
              else __import__("sfn_emulator.service.errors", fromlist=["InvalidDefinition"]).InvalidDefinition)
    with pytest.raises(create, match=message):
        driver.call("create_state_machine", name="laughs", roleArn=ROLE, definition=definition, tags=tags)
    assert driver.call("list_state_machines")["stateMachines"] == []


@pytest.mark.parametrize("dialect", sorted(DOCUMENTS))
def test_an_ordinary_alias_reads_as_the_value_it_names(dialect: str, driver: Driver) -> None:
    if dialect == "sm4c":  # top-level members it does not know are let be
        definition = DOCUMENTS[dialect].format(extra='greeting: &hello "hi"\nagain: *hello\n', value='"hi"')
    else:
        definition = DOCUMENTS[dialect].format(extra="", value='&hello "hi", y: *hello')
    answer = driver.call("validate_state_machine_definition", definition=definition)
    assert answer["result"] == "OK", answer


@pytest.mark.parametrize("bomb", sorted(BOMBS))
def test_a_definition_file_with_an_alias_bomb_is_unreadable(bomb: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    extra, value, message = BOMBS[bomb]
    path = tmp_path / "laughs.yaml"
    path.write_text(DOCUMENTS["serverless-workflow"].format(extra=extra, value=value), encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    assert message in capsys.readouterr().err


def test_the_bound_counts_expanded_values_not_text() -> None:
    """Just under the bound reads; one level more of the same text is refused."""
    from sfn_emulator.dialects.documents import read_document

    levels = ["a: &a [" + ",".join(['"x"'] * 8) + "]"]
    for level in range(1, 6):  # 8^6 = 262,144 values, under the bound
        levels.append(f"l{level}: &l{level} [" + ",".join([f"*{'a' if level == 1 else f'l{level - 1}'}"] * 8) + "]")
    assert len(json.dumps(read_document("\n".join(levels))["l5"])) > 1_000_000
    levels.append("l6: &l6 [" + ",".join(["*l5"] * 8) + "]")  # 8^7 = 2,097,152 values
    with pytest.raises(ValueError, match="expand it to more than"):
        read_document("\n".join(levels))
