"""Real boto3 calls to an emulator running in a container (docker/podman-smoke.sh starts it).

Expects the container to have fixtures/ mounted at /config, with SFN_EMULATOR_FUNCTIONS naming
fixtures/functions/functions.yaml and SFN_MOCK_CONFIG fixtures/mocks/OrderPolling.yaml, and, with
`--stack-stage`, examples/sam-app/ served by `serve --stack ... --stack-parameter Stage=STAGE`. Exits
non-zero, saying what differed, when an answer is not the expected one.

    python docker/smoke_check.py http://127.0.0.1:8083 --account 111122223333 --region eu-west-1 --stack-stage smoke
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import boto3
import yaml
from botocore.config import Config

EXECUTION_DEADLINE_SECONDS = 30


def client(endpoint: str, region: str, service: str = "stepfunctions") -> Any:
    return boto3.client(
        service, endpoint_url=endpoint, region_name=region,
        aws_access_key_id="test", aws_secret_access_key="test",
        config=Config(inject_host_prefix=False, retries={"max_attempts": 1}),
    )


def finished_execution(sfn: Any, execution_arn: str) -> dict[str, Any]:
    """DescribeExecution once the execution has left RUNNING (polling, as a user's script would)."""
    deadline = time.monotonic() + EXECUTION_DEADLINE_SECONDS
    while True:
        described = sfn.describe_execution(executionArn=execution_arn)
        if described["status"] != "RUNNING":
            return described
        if time.monotonic() > deadline:
            raise SystemExit(f"{execution_arn} still RUNNING after {EXECUTION_DEADLINE_SECONDS} s")
        time.sleep(0.05)


def expect(what: str, actual: Any, expected: Any) -> None:
    if actual != expected:
        raise SystemExit(f"{what}: expected {expected!r}, got {actual!r}")
    print(f"ok: {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("endpoint")
    parser.add_argument("--account", required=True, help="the container's AWS_ACCOUNT_ID")
    parser.add_argument("--region", required=True, help="the container's AWS_DEFAULT_REGION")
    parser.add_argument("--fixtures", type=Path, default=Path(__file__).resolve().parents[1] / "fixtures")
    parser.add_argument("--stack-stage", help="the Stage parameter examples/sam-app/ was served with (checks it)")
    arguments = parser.parse_args()
    machines = arguments.fixtures / "machines"
    role = f"arn:aws:iam::{arguments.account}:role/smoke"

    with urllib.request.urlopen(f"{arguments.endpoint}/_emulator/health", timeout=10) as response:
        expect("GET /_emulator/health", json.load(response)["status"], "ok")

    sfn = client(arguments.endpoint, arguments.region)

    # A Lambda function served by a Python callable from the mounted functions map.
    greeting = yaml.safe_load((machines / "Greeting.asl.yaml").read_text())
    arn = sfn.create_state_machine(name="Greeting", definition=json.dumps(greeting), roleArn=role)["stateMachineArn"]
    expect("state machine ARN (account and region from the container's environment)",
           arn, f"arn:aws:states:{arguments.region}:{arguments.account}:stateMachine:Greeting")
    started = sfn.start_execution(stateMachineArn=arn, input=json.dumps({"name": "Ada"}))
    described = finished_execution(sfn, started["executionArn"])
    expect("Greeting status", described["status"], "SUCCEEDED")
    expect("Greeting output", json.loads(described["output"]), {"message": "Hello, Ada!"})

    # Mocked responses from the mounted mock configuration (SFN_MOCK_CONFIG), a test case per execution.
    definition = (machines / "OrderPolling.asl.json").read_text()
    arn = sfn.create_state_machine(name="OrderPolling", definition=definition, roleArn=role)["stateMachineArn"]
    started = sfn.start_execution(stateMachineArn=f"{arn}#ShipsOnThirdCheck", input=json.dumps({"item": "book"}))
    described = finished_execution(sfn, started["executionArn"])
    expect("OrderPolling#ShipsOnThirdCheck status", described["status"], "SUCCEEDED")
    expect("OrderPolling#ShipsOnThirdCheck output", json.loads(described["output"])["check"], {"status": "SHIPPED"})
    waits = [event for event in sfn.get_execution_history(executionArn=started["executionArn"])["events"]
             if event["type"] == "WaitStateEntered"]
    expect("OrderPolling#ShipsOnThirdCheck minute-long waits (skipped by the virtual clock)", len(waits), 2)
    started = sfn.start_execution(stateMachineArn=f"{arn}#Rejected", input="{}")
    described = finished_execution(sfn, started["executionArn"])
    expect("OrderPolling#Rejected outcome", (described["status"], described.get("error")), ("FAILED", "OrderRejected"))

    # StartSyncExecution: the data-plane operation that needs inject_host_prefix=False.
    express = sfn.create_state_machine(
        name="Echo", type="EXPRESS", roleArn=role,
        definition=json.dumps({"StartAt": "Echo", "States": {"Echo": {"Type": "Pass", "End": True}}}),
    )
    answer = sfn.start_sync_execution(stateMachineArn=express["stateMachineArn"], input='{"echo": 1}')
    expect("StartSyncExecution", (answer["status"], json.loads(answer["output"])), ("SUCCEEDED", {"echo": 1}))

    if arguments.stack_stage is not None:
        check_sam_app(arguments.endpoint, arguments.region, sfn, arguments.stack_stage)


def check_sam_app(endpoint: str, region: str, sfn: Any, stage: str) -> None:
    """examples/sam-app/ as `serve --stack` loaded it: its state machine, named from the Stage parameter,
    runs its Python function (with the function's environment) and sends the order to its queue."""
    [machine] = [machine for machine in sfn.list_state_machines()["stateMachines"]
                 if machine["name"] == f"order-flow-{stage}"]
    started = sfn.start_execution(stateMachineArn=machine["stateMachineArn"],
                                  input=json.dumps({"orderId": "o-1", "items": ["book", "pen"]}))
    described = finished_execution(sfn, started["executionArn"])
    reserved = {"orderId": "o-1", "reserved": 2, "warehouse": f"warehouse-{stage}"}
    expect("the stack's OrderFlow status", described["status"], "SUCCEEDED")
    expect("the stack's OrderFlow output (its Python function's)", json.loads(described["output"]), reserved)
    sqs = client(endpoint, region, "sqs")
    [queue_url] = [url for url in sqs.list_queues().get("QueueUrls", []) if "WarehouseQueue" in url]
    messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10).get("Messages", [])
    expect("the stack's WarehouseQueue messages", [json.loads(message["Body"]) for message in messages], [reserved])


if __name__ == "__main__":
    main()
    sys.exit(0)
