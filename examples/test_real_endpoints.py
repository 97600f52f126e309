"""Real endpoints: the queue a task sends to lives in another server (here moto's, started by the test;
ElasticMQ, LocalStack or DynamoDB Local the same way), named by SQS_ENDPOINT / `sqs_endpoint`.
And the HTTP Task: a real request to an API (here one started by the test), authorized by an
EventBridge connection created on the emulator's endpoint."""

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer

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


class PricesApi(BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"sku": self.path.rsplit("/", 1)[1], "price": 12,
                           "key": self.headers["x-api-key"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def prices_api():
    server = HTTPServer(("127.0.0.1", 0), PricesApi)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_an_http_task_calls_the_api(prices_api, sfn_emulator):
    connection = sfn_emulator.client("events").create_connection(
        Name="prices", AuthorizationType="API_KEY",
        AuthParameters={"ApiKeyAuthParameters": {"ApiKeyName": "x-api-key", "ApiKeyValue": "s3cret"}})
    definition = {"StartAt": "Price", "States": {"Price": {
        "Type": "Task", "Resource": "arn:aws:states:::http:invoke", "End": True,
        "Parameters": {"ApiEndpoint.$": "States.Format('{}/prices/{}', $.api, $.sku)", "Method": "GET",
                       "Authentication": {"ConnectionArn": connection["ConnectionArn"]}},
        "ResultSelector": {"price.$": "$.ResponseBody.price", "key.$": "$.ResponseBody.key",
                           "status.$": "$.StatusCode"}}}}

    result = sfn_emulator.run(definition, {"api": prices_api, "sku": "A-1"})

    result.assert_succeeded(output={"price": 12, "key": "s3cret", "status": 200})
