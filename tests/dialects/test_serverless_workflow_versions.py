"""Which Serverless Workflow a document is (by its version fields), and that DSL 1.0 workflows are
drawn and measured as the other dialects' are (graph edges, coverage of switch cases)."""

from __future__ import annotations

import json

import pytest
import yaml

from sfn_emulator import dialects
from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator
from sfn_emulator.service.errors import InvalidDefinition

ROLE = "arn:aws:iam::123456789012:role/sw"
DSL1 = {"document": {"dsl": "1.0.0", "namespace": "t", "name": "w", "version": "1"}, "do": [{"a": {"set": {"x": 1}}}]}
STATE = {"name": "A", "type": "inject", "data": {}, "end": True}


@pytest.mark.parametrize(("document", "dialect"), [
    (DSL1, "serverless-workflow-1.0"),
    ({**DSL1, "document": {**DSL1["document"], "dsl": "1.0.3"}}, "serverless-workflow-1.0"),
    ({**DSL1, "document": {**DSL1["document"], "dsl": "0.9"}}, "asl"),  # no dialect claims it: ASL's diagnostics
    ({"id": "w", "specVersion": "0.8", "states": [STATE]}, "serverless-workflow-0.x"),
    ({"id": "w", "specVersion": "0.7", "states": [STATE]}, "serverless-workflow-0.x"),
    ({"id": "w", "start": "A", "states": [STATE]}, "serverless-workflow-0.x"),  # 0.6: no specVersion
    ({"id": "w", "states": [STATE]}, "serverless-workflow-0.x"),  # no state marks itself the start
    ({"id": "w", "states": [{**STATE, "start": {"kind": "default"}, "end": {"kind": "default"}}]}, "serverless-workflow"),
    ({"StartAt": "A", "States": {"A": {"Type": "Succeed"}}}, "asl"),
], ids=["dsl-1.0.0", "dsl-1.0.3", "dsl-0.9", "0.8", "0.7", "0.6-start", "0.x-no-start-marker", "design-draft", "asl"])
def test_a_document_is_read_by_its_version(document: dict, dialect: str) -> None:
    assert dialects.dialect_of(json.dumps(document)).name == dialect
    assert dialects.dialect_of(yaml.safe_dump(document)).name == dialect


def test_the_dialect_tag_chooses_the_version() -> None:
    with Emulator(Settings(clock="manual")) as emulator:
        tags = [{"key": "sfn-emulator:dialect", "value": "serverless-workflow-1.0"}]
        with pytest.raises(InvalidDefinition, match="'document' object"):
            emulator.service.create_state_machine(name="w", roleArn=ROLE, tags=tags,
                                                  definition=json.dumps({"id": "w", "states": [STATE]}))


SWITCHING = """document: {dsl: '1.0.0', namespace: t, name: s, version: '1'}
do:
  - pick:
      switch:
        - red:
            when: '.color == "red"'
            then: paint
        - other:
            then: nested
  - paint:
      set:
        colors: red
      then: end
  - nested:
      do:
        - inner:
            set:
              x: 1
"""


def test_a_dsl1_graph_draws_top_level_tasks_and_switch_cases() -> None:
    graph = dialects.graph_of(SWITCHING)
    assert [(node.name, node.type) for node in graph.nodes] == [("pick", "Choice"), ("paint", "Pass"), ("nested", "Pass")]
    assert [(edge.source, edge.target, edge.kind, edge.label) for edge in graph.edges] == [
        (None, "pick", "start", ""), ("pick", "paint", "choice", '.color == "red"'), ("pick", "nested", "default", "Default"),
        ("paint", None, "end", None), ("nested", None, "end", None)]


@pytest.mark.parametrize(("colors", "rules"), [
    (["red"], {"pick.Choices[0]"}),
    (["blue"], {"pick.Default"}),
    (["red", "blue"], {"pick.Choices[0]", "pick.Default"}),
])
def test_coverage_counts_the_switch_cases_taken(colors: list[str], rules: set[str]) -> None:
    with Emulator(Settings(clock="manual")) as emulator:
        arn = emulator.service.create_state_machine(name="w", roleArn=ROLE, definition=SWITCHING)["stateMachineArn"]
        for color in colors:
            emulator.service.start_execution(stateMachineArn=arn, input=json.dumps({"color": color}))
            assert emulator.engine.run_until_idle(timeout=30)
        [machine] = emulator.coverage.report().machines
        assert machine.covered["choiceRules"] == rules
