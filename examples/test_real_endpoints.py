"""Real endpoints: the queue a task sends to lives in another server (here moto's, started by the test;
ElasticMQ, LocalStack or DynamoDB Local the same way), named by SQS_ENDPOINT / `sqs_endpoint`."""

import socket
import subprocess
import sys
import time
import urllib.request

import boto3
import pytest

from sfn_emulator import run_definition
from sfn_emulator.config import Settings


@pytest.fixture
def sqs_endpoint():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-p", str(port)], stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):  # wait until it answers, at most a minute
        try:
            urllib.request.urlopen(f"{url}/moto-api/data.json").close()
            break
        except OSError:
            time.sleep(0.1)
    yield url
    server.terminate()
    server.wait()


def test_send_message_reaches_the_real_queue(sqs_endpoint):
    sqs = boto3.client("sqs", endpoint_url=sqs_endpoint, region_name="us-east-1",
                       aws_access_key_id="testing", aws_secret_access_key="testing")
    queue_url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    definition = {"StartAt": "Notify", "States": {"Notify": {
        "Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage", "End": True,
        "Parameters": {"QueueUrl": queue_url, "MessageBody.$": "$.orderId"}}}}

    result = run_definition(definition, {"orderId": "o-5"}, settings=Settings(sqs_endpoint=sqs_endpoint))

    assert result.status == "SUCCEEDED"
    assert sqs.receive_message(QueueUrl=queue_url)["Messages"][0]["Body"] == "o-5"
