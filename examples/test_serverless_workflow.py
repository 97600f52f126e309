"""A CNCF Serverless Workflow on the emulator: a function served by a Python callable, an event
published from the test, and a two-hour delay the virtual clock runs at once."""


def reserve_stock(event, context):
    return {"reservation": f"r-{event['orderId']}"}


def test_an_order_ships_two_hours_after_its_payment(sfn_emulator):
    sfn_emulator.register("reserveStock", reserve_stock)
    waiting = sfn_emulator.run("fixtures/order.workflow.yaml", {"orderId": "o-1"})
    assert waiting.status == "RUNNING"
    assert waiting.visited_states == ["Reserve", "AwaitPayment"]

    consumed = sfn_emulator.publish_event({
        "specversion": "1.0", "id": "pay-1", "source": "payments", "type": "com.example.payment.received",
        "orderid": "o-1", "data": {"paid": 25},
    })
    assert consumed == [{"id": "pay-1", "consumedBy": [waiting.execution_arn]}]

    result = sfn_emulator.wait(waiting.execution_arn)  # the delay: two hours of clock time, at once
    result.assert_succeeded(output={"orderId": "o-1", "reservation": "r-o-1", "paid": 25, "status": "SHIPPED"})
    assert result.visited_states == ["Reserve", "AwaitPayment", "CoolingOff", "Ship"]
