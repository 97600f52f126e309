"""Regular expressions a workflow writes (JSONata's, JSONPath filters' `=~`) are matched with a time
bound (sfn_emulator.asl.bounded_regex): JSONata's give jsonata-python's own results for every regex
function, and a match that would backtrack for minutes fails its state (States.QueryEvaluationError in
JSONata, States.Runtime in a JSONPath filter) instead of freezing the engine."""

from __future__ import annotations

import json

import jsonata
import pytest
from engine_harness import Harness

from sfn_emulator.asl import bounded_regex

EXPRESSIONS = [
    '$match("abcabc", /b(c)/)',
    '$match("ab12cd345", /[0-9]+/, 1)',
    '$replace("abc", /(b)/, "[$1]")',
    '$replace("abc", /(b)/, "$12")',  # no group 12: "$1" then "2", as JSONata reads it
    '$replace("hello world", /o/, function($m){ $uppercase($m.match) })',
    '$replace("a.b.c", /\\./, "-", 1)',
    '$split("a1b2c", /[0-9]/)',
    '$split("a1b2c", /[0-9]/, 2)',
    '$contains("Hello", /L+/i)',
    '$contains("one\\ntwo", /^two$/m)',
    '"x-y-z" ~> $split(/-/) ~> $join("+")',
    '$count($match("no digits", /[0-9]/))',
]


def _output(expression: str) -> object:
    state = {"Type": "Pass", "Output": {"value": "{% " + expression + " %}"}, "End": True}
    with Harness() as harness:
        execution = harness.run({"QueryLanguage": "JSONata", "StartAt": "Match", "States": {"Match": state}})
    assert execution.status == "SUCCEEDED", execution.cause
    return json.loads(execution.output).get("value")


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_results_are_those_of_jsonatas_own_engine(expression: str) -> None:
    expected = jsonata.Jsonata(expression).evaluate(None)
    assert _output(expression) == json.loads(json.dumps(expected))


CATASTROPHIC = '$match("' + "a" * 30 + '!", /^(a|aa)+$/)'


def test_a_match_that_would_backtrack_for_minutes_fails_its_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounded_regex, "MATCH_SECONDS", 0.2)
    spin = {"QueryLanguage": "JSONata", "StartAt": "Spin",
            "States": {"Spin": {"Type": "Pass", "Output": "{% " + CATASTROPHIC + " %}", "End": True}}}
    quick = {"QueryLanguage": "JSONata", "StartAt": "Quick",
             "States": {"Quick": {"Type": "Pass", "Output": "{% $uppercase('done') %}", "End": True}}}
    with Harness() as harness:
        slow = harness.start(spin)
        done = harness.run(quick)
        failed = harness.finish(slow)
    assert (done.status, done.output) == ("SUCCEEDED", '"DONE"')
    assert (failed.status, failed.error) == ("FAILED", "States.QueryEvaluationError")
    assert failed.cause.endswith("threw an error during evaluation. The regular expression /^(a|aa)+$/ did not "
                                 "finish matching within 0.2 seconds.")


def test_a_jsonpath_filter_that_would_backtrack_for_minutes_fails_its_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounded_regex, "MATCH_SECONDS", 0.2)
    definition = {"StartAt": "Pick", "States": {
        "Pick": {"Type": "Pass", "InputPath": "$.items[?(@.name =~ /^(a|aa)+$/)]", "End": True}}}
    with Harness() as harness:
        failed = harness.run(definition, {"items": [{"name": "a" * 30 + "!"}]})
        matched = harness.run(definition, {"items": [{"name": "aaaa"}, {"name": "b"}]})
    assert (failed.status, failed.error) == ("FAILED", "States.Runtime")
    assert failed.cause == ("An error occurred while executing the state 'Pick' (entered at the event id #2). "
                            "The regular expression /^(a|aa)+$/ did not finish matching within 0.2 seconds.")
    assert (matched.status, json.loads(matched.output)) == ("SUCCEEDED", [{"name": "aaaa"}])
