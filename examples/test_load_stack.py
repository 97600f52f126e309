"""Load the SAM app you deploy (examples/sam-app/) and run its workflow, its Python function and queue included."""

import json


def test_the_order_flow_reserves_and_queues_the_order(sfn_emulator):
    stack = sfn_emulator.load_stack("sam-app/template.yaml", {"Stage": "test"})
    assert stack.functions["ReserveFunction"].served_by == "python"

    result = sfn_emulator.run(stack.state_machines["OrderFlow"], {"orderId": "o-1", "items": ["book", "pen"]})
    assert result.status == "SUCCEEDED"
    assert result.visited_states == ["Reserve", "Queue for warehouse"]

    queue_url = stack.resources["WarehouseQueue"].url
    [message] = sfn_emulator.client("sqs").receive_message(QueueUrl=queue_url)["Messages"]
    assert json.loads(message["Body"]) == {"orderId": "o-1", "reserved": 2, "warehouse": "warehouse-test"}
