"""An SM4C workflow under test: a Python callable for its function, a CloudEvent published from the
test, and a 15-minute timeout fast-forwarded on the clock."""

import json

ORDER = {"orderId": "o-7"}


def reserve_stock(event, context):
    """The function `reserveStock`: its event is the action's evaluated `arguments`."""
    return {"reserved": event["orderId"]}


def start_order(sfn_emulator):
    sfn_emulator.register("reserveStock", reserve_stock)
    machine = sfn_emulator.create_state_machine("fixtures/order.sm4c.yaml")
    started = sfn_emulator.client().start_execution(stateMachineArn=machine, input=json.dumps(ORDER))
    execution_arn = started["executionArn"]
    assert sfn_emulator.wait(execution_arn).stopped_in.name == "AwaitingPayment"
    return execution_arn


def test_a_payment_event_ships_the_order(sfn_emulator):
    execution_arn = start_order(sfn_emulator)
    sfn_emulator.publish_event({"specversion": "1.0", "id": "pay-1", "source": "payments",
                                "type": "payment.received", "data": {"amount": 42}})
    result = sfn_emulator.wait(execution_arn)
    result.assert_succeeded(output={"orderId": "o-7", "reservation": {"reserved": "o-7"}, "paid": 42})
    assert result.visited_states == ["Reserve", "AwaitingPayment", "Ship"]
    [shipped] = sfn_emulator.produced_events(execution_arn)
    assert (shipped["type"], shipped["data"]) == ("order.shipped", {"orderId": "o-7", "paid": 42})


def test_an_unpaid_order_is_cancelled_after_15_minutes(sfn_emulator):
    execution_arn = start_order(sfn_emulator)
    sfn_emulator.clock.advance(15 * 60)
    result = sfn_emulator.wait(execution_arn)
    result.assert_succeeded()
    assert result.visited_states == ["Reserve", "AwaitingPayment", "Cancelled"]
    assert result.output["cancelled"] == "no payment within 15 minutes"
