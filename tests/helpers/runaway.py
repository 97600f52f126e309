"""State machines that never wait, shared by the engine-level and the HTTP tests of runaway executions."""

from __future__ import annotations

# AWS's cause when an execution reaches the 25,000-event history quota.
HISTORY_LIMIT_CAUSE = "The execution reached the maximum number of history events (25000)."

# A loop of Pass and Choice that only an input of {"x": 0} leaves.
LOOP_STATES = {
    "Again": {"Type": "Pass", "Next": "Check"},
    "Check": {"Type": "Choice", "Choices": [{"Variable": "$.x", "NumericEquals": 0, "Next": "Out"}],
              "Default": "Again"},
    "Out": {"Type": "Succeed"},
}
LOOP = {"StartAt": "Again", "States": LOOP_STATES}
# Each turn of this loop takes a while (a large sum), so it is still far from the quota when a test
# is done with it.
SLOW_LOOP = {"QueryLanguage": "JSONata", "StartAt": "Sum", "States": {
    "Sum": {"Type": "Pass", "Output": "{% $sum([1..20000]) %}", "Next": "Check"},
    "Check": {"Type": "Choice", "Choices": [{"Condition": "{% $states.input = 0 %}", "Next": "Out"}],
              "Default": "Sum"},
    "Out": {"Type": "Succeed"},
}}
QUICK = {"StartAt": "One", "States": {"One": {"Type": "Pass", "Next": "Two"}, "Two": {"Type": "Pass", "End": True}}}
