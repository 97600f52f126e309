"""Replay: record an execution once, then check that a changed definition still handles it.

`sfn_emulator.replay(history, definition)` runs the definition with the answers each Task got in
the recording (nothing is called again) on a clock starting where the recording started, and
compares the new history with the recorded one; `assert_matched()` fails with the first divergence.
A production history works the same: save `aws stepfunctions get-execution-history` to a file and
pass its path.
"""

import json
from pathlib import Path

from checkout import charge_card

CHECKOUT = Path(__file__).parent / "fixtures" / "Checkout.asl.json"


def test_a_recorded_checkout_still_ships_after_a_refactoring(sfn_emulator):
    sfn_emulator.register("charge-card", charge_card)
    recorded = sfn_emulator.run(CHECKOUT, {"orderId": "o-1", "card": "4242"})
    history = {"events": recorded.history}  # what GetExecutionHistory answers

    refactored = json.loads(CHECKOUT.read_text())
    refactored["States"]["WaitForWarehouse"]["Seconds"] = 7200  # waits longer: same path, same outputs
    sfn_emulator.replay(history, refactored).assert_matched()


def test_a_changed_result_path_is_caught_where_it_first_differs(sfn_emulator):
    sfn_emulator.register("charge-card", charge_card)
    recorded = sfn_emulator.run(CHECKOUT, {"orderId": "o-2", "card": "4242"})

    changed = json.loads(CHECKOUT.read_text())
    changed["States"]["Charge"]["ResultPath"] = "$.charge"
    result = sfn_emulator.replay({"events": recorded.history}, changed)
    assert not result.matched
    assert (result.divergence.state, result.divergence.kind) == ("Charge", "output")
    assert result.divergence.diff == ['$.payment: missing (expected {"chargeId": "ch-o-2"})',
                                      '$.charge: not expected (got {"chargeId": "ch-o-2"})']
