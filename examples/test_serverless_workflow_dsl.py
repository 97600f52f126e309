"""A Serverless Workflow DSL 1.0 document on the emulator: a call served by a Python callable, an
event published from the test, and a two-hour wait the virtual clock runs at once."""


def reserve_stock(event, context):
    return {"reservation": f"r-{event['orderId']}"}


def test_a_dsl_order_ships_two_hours_after_its_payment(sfn_emulator):
    sfn_emulator.register("reserveStock", reserve_stock)
    waiting = sfn_emulator.run("fixtures/order.dsl1.yaml", {"orderId": "o-1"})
    assert waiting.status == "RUNNING"
    assert waiting.visited_states == ["reserve", "awaitPayment"]

    sfn_emulator.publish_event({
        "specversion": "1.0", "id": "pay-1", "source": "payments", "type": "com.example.payment.received",
        "data": {"amount": 25},
    })

    result = sfn_emulator.wait(waiting.execution_arn)  # the wait: two hours of clock time, at once
    result.assert_succeeded(output={"orderId": "o-1", "reservation": "r-o-1", "paid": 25, "status": "SHIPPED"})
    assert result.visited_states == ["reserve", "awaitPayment", "coolOff", "ship"]
