"""The pytest plugin: installing sfn-emulator brings the fixtures `sfn_emulator` and `sfn_client`.

Each test gets its own account on an emulator started once per session; Lambda functions are
Python callables; the virtual clock runs the hour-long Wait at once.
"""

import json

from checkout import charge_card

ORDER = {"orderId": "o-1", "card": "4242"}


def test_a_checkout_charges_waits_for_the_warehouse_and_ships(sfn_emulator):
    sfn_emulator.register("charge-card", charge_card)
    result = sfn_emulator.run("fixtures/Checkout.asl.json", ORDER)
    result.assert_succeeded(output={"orderId": "o-1", "chargeId": "ch-o-1", "status": "SHIPPED"})
    assert result.visited_states == ["Charge", "WaitForWarehouse", "Ship"]


def test_a_declined_card_fails_the_checkout(sfn_emulator):
    sfn_emulator.register("charge-card", charge_card)
    result = sfn_emulator.run("fixtures/Checkout.asl.json", {"orderId": "o-2", "card": "0000"})
    result.assert_failed(error="PaymentDeclined", cause="The card was declined.")
    assert result.stopped_in.name == "Declined"


def test_a_busy_card_service_is_retried(sfn_emulator):
    sfn_emulator.use_mock_config("fixtures/mocks.json")
    result = sfn_emulator.run("fixtures/Checkout.asl.json", ORDER, test_case="BusyThenCharged")
    result.assert_succeeded()
    assert [event["type"] for event in result.history].count("TaskFailed") == 2


def test_the_clock_can_be_moved_by_hand(sfn_emulator, sfn_client):
    sfn_emulator.register("charge-card", charge_card)
    sfn_emulator.clock.mode = "manual"  # put back to auto after the test
    machine_arn = sfn_emulator.create_state_machine("fixtures/Checkout.asl.json")
    execution = sfn_client.start_execution(stateMachineArn=machine_arn, input=json.dumps(ORDER))
    assert sfn_emulator.wait(execution["executionArn"]).stopped_in.name == "WaitForWarehouse"
    sfn_emulator.clock.advance(3600)
    sfn_emulator.wait(execution["executionArn"]).assert_succeeded()
