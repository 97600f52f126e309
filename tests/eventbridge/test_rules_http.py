"""Rules deliver matched events to their targets as EventBridge does (API reference: Target; user guide:
"Amazon EventBridge input transformation"), whoever put the event: another execution's status change,
PutEvents through the endpoint, or an `events:putEvents` Task. Over HTTP with boto3."""

from __future__ import annotations

import json
import threading
from typing import Any

from helpers.eventbridge_cloud import Cloud

PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}
ORDER_PLACED = {"Source": "shop.orders", "DetailType": "OrderPlaced", "Detail": json.dumps({"id": "o-1", "total": 42})}


def _settle(emulator_server: Any) -> None:
    assert emulator_server.emulator.clock.run_until_idle(30)


def _executions(cloud: Cloud, machine: str) -> list[dict[str, Any]]:
    sfn = cloud.client("stepfunctions")
    return [sfn.describe_execution(executionArn=item["executionArn"])
            for item in sfn.list_executions(stateMachineArn=machine)["executions"]]


def test_a_rule_starts_a_second_machine_from_the_first_ones_success(cloud: Cloud, emulator_server: Any) -> None:
    first = cloud.machine("first", {"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": {"n": 5}, "End": True}}})
    second = cloud.machine("second", PASS)
    cloud.rule("chain", [{"Arn": second, "RoleArn": cloud.role, "InputTransformer": {
        "InputPathsMap": {"name": "$.detail.name", "output": "$.detail.output", "status": "$.detail.status"},
        "InputTemplate": '{"after": "<name>", "status": "<status>", "output": <output>, "rule": "<aws.events.rule-name>"}'}}],
        EventPattern=json.dumps({"source": ["aws.states"], "detail": {"status": ["SUCCEEDED"], "stateMachineArn": [first]}}))
    sfn = cloud.client("stepfunctions")
    run = sfn.start_execution(stateMachineArn=first, name="run-1")["executionArn"]
    _settle(emulator_server)
    [started] = _executions(cloud, second)
    assert started["status"] == "SUCCEEDED"
    assert json.loads(started["input"]) == {"after": "run-1", "status": "SUCCEEDED", "output": '{"n":5}', "rule": "chain"}
    assert started["startDate"] == sfn.describe_execution(executionArn=run)["stopDate"]
    assert emulator_server.emulator.eventbridge.started_by(started["executionArn"]) == cloud.arn("events", "rule/chain")


def test_put_events_through_the_endpoint_starts_a_machine_with_the_input_path(cloud: Cloud, emulator_server: Any) -> None:
    machine = cloud.machine("orders", PASS)
    cloud.rule("orders", [{"Arn": machine, "InputPath": "$.detail"}],
               EventPattern=json.dumps({"source": ["shop.orders"], "detail-type": ["OrderPlaced"]}))
    answer = cloud.client("events").put_events(Entries=[ORDER_PLACED, {**ORDER_PLACED, "Source": "shop.other"}])
    assert answer["FailedEntryCount"] == 0
    _settle(emulator_server)
    assert [json.loads(execution["input"]) for execution in _executions(cloud, machine)] == [{"id": "o-1", "total": 42}]


def test_a_put_events_task_reaches_a_queue_with_a_constant_input(cloud: Cloud, emulator_server: Any) -> None:
    url, queue = cloud.queue("constant")
    cloud.rule("constant", [{"Arn": queue, "Input": '{"fixed": true}'}], EventPattern=json.dumps({"source": ["shop.orders"]}))
    task = {"StartAt": "Put", "States": {"Put": {"Type": "Task", "Resource": "arn:aws:states:::events:putEvents", "End": True,
                                                 "Parameters": {"Entries": [ORDER_PLACED]}}}}
    sfn = cloud.client("stepfunctions")
    sfn.start_execution(stateMachineArn=cloud.machine("putter", task))
    _settle(emulator_server)
    assert [message["Body"] for message in cloud.messages(url)] == [{"fixed": True}]


def test_a_text_template_is_delivered_as_text(cloud: Cloud, emulator_server: Any) -> None:
    url, queue = cloud.queue("text")
    cloud.rule("text", [{"Arn": queue, "InputTransformer": {"InputPathsMap": {"id": "$.detail.id", "missing": "$.detail.nope"},
                                                              "InputTemplate": "Order <id> placed<missing>"}}],
               EventPattern=json.dumps({"source": ["shop.orders"]}))
    cloud.client("events").put_events(Entries=[ORDER_PLACED])
    assert [message["Body"] for message in cloud.messages(url)] == ["Order o-1 placed"]


def test_a_lambda_target_runs_the_registered_callable(cloud: Cloud, emulator_server: Any) -> None:
    seen: list[Any] = []
    called = threading.Event()
    function = cloud.arn("lambda", "function:on-order")

    def on_order(event: Any, context: Any) -> None:
        seen.append(event)
        called.set()

    emulator_server.emulator.functions.register(function, on_order)
    try:
        cloud.rule("to-lambda", [{"Arn": function}], EventPattern=json.dumps({"source": ["shop.orders"]}))
        cloud.client("events").put_events(Entries=[ORDER_PLACED])
        assert called.wait(30)
    finally:
        emulator_server.emulator.functions.unregister(function)
    assert [(event["source"], event["detail"]) for event in seen] == [("shop.orders", {"id": "o-1", "total": 42})]


def test_an_sns_target_notifies_the_topic_subscribers(cloud: Cloud, emulator_server: Any) -> None:
    url, queue = cloud.queue("subscriber")
    sns = cloud.client("sns")
    topic = sns.create_topic(Name="orders")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue, Attributes={"RawMessageDelivery": "true"})
    cloud.rule("to-topic", [{"Arn": topic, "InputPath": "$.detail.id"}], EventPattern=json.dumps({"source": ["shop.orders"]}))
    cloud.client("events").put_events(Entries=[ORDER_PLACED])
    assert [message["Body"] for message in cloud.messages(url)] == ["o-1"]


def test_a_target_that_fails_sends_the_event_to_its_dead_letter_queue(cloud: Cloud, emulator_server: Any) -> None:
    url, dead_letters = cloud.queue("dead-letters")
    missing = cloud.arn("states", "stateMachine:never-created")
    cloud.rule("to-nowhere", [{"Arn": missing, "DeadLetterConfig": {"Arn": dead_letters}}],
               EventPattern=json.dumps({"source": ["shop.orders"]}))
    cloud.client("events").put_events(Entries=[ORDER_PLACED])
    [message] = cloud.messages(url)
    assert message["Body"]["detail"] == {"id": "o-1", "total": 42}
    attributes = {name: value["StringValue"] for name, value in message["MessageAttributes"].items()}
    assert attributes == {"ERROR_CODE": "SDK_CLIENT_ERROR",
                          "ERROR_MESSAGE": f"State Machine Does Not Exist: '{missing}'",
                          "RULE_ARN": cloud.arn("events", "rule/to-nowhere"), "TARGET_ARN": missing}


def test_a_fifo_queue_needs_content_based_deduplication(cloud: Cloud, emulator_server: Any) -> None:
    sqs = cloud.client("sqs")
    plain = sqs.create_queue(QueueName="plain.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    deduplicated = sqs.create_queue(QueueName="dedup.fifo", Attributes={"FifoQueue": "true",
                                                                        "ContentBasedDeduplication": "true"})["QueueUrl"]
    arns = [sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
            for url in (plain, deduplicated)]
    cloud.rule("to-fifo", [{"Arn": arn, "SqsParameters": {"MessageGroupId": "orders"}} for arn in arns],
               EventPattern=json.dumps({"source": ["shop.orders"]}))
    cloud.client("events").put_events(Entries=[ORDER_PLACED])
    assert cloud.messages(plain) == []
    assert [message["Body"]["detail"]["id"] for message in cloud.messages(deduplicated)] == ["o-1"]
