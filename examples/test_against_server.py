"""boto3 pointed at a running sfn-emulator, as in integration tests and CI with the Docker image.

Uses the server at $SFN_ENDPOINT when it is set (e.g. `docker run -p 8083:8083 ...`, started with
`SFN_EMULATOR_FUNCTIONS` pointing at functions.yaml); otherwise starts `sfn-emulator serve --port 0`
for this module and reads its address from the first line it prints.
"""

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import boto3
import pytest
from botocore.config import Config

HERE = Path(__file__).parent
ROLE = "arn:aws:iam::123456789012:role/checkout"


@pytest.fixture(scope="module")
def endpoint_url():
    if os.environ.get("SFN_ENDPOINT"):
        yield os.environ["SFN_ENDPOINT"]
        return
    command = [str(Path(sys.executable).with_name("sfn-emulator")), "serve", "--port", "0",
               "--functions", str(HERE / "functions.yaml"), "--log-level", "WARNING"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    banner = server.stdout.readline()  # "sfn-emulator 0.1.0 serving AWS Step Functions on http://127.0.0.1:PORT (...)"
    yield re.search(r" on (http://\S+)", banner).group(1)
    server.terminate()
    server.wait(timeout=10)


@pytest.fixture
def sfn(endpoint_url):
    return boto3.client(
        "stepfunctions",
        endpoint_url=endpoint_url,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
        config=Config(inject_host_prefix=False),
    )


def create_checkout(sfn, type="STANDARD"):
    definition = (HERE / "fixtures" / "Checkout.asl.json").read_text()
    name = f"Checkout-{uuid.uuid4().hex[:8]}"
    return sfn.create_state_machine(name=name, definition=definition, roleArn=ROLE, type=type)["stateMachineArn"]


def test_an_express_checkout_cannot_wait_an_hour(sfn):
    # An EXPRESS execution runs for five minutes at most, as on AWS: the hour's wait for the warehouse
    # ends it TIMED_OUT (in clock time: the answer comes at once).
    machine_arn = create_checkout(sfn, type="EXPRESS")
    answer = sfn.start_sync_execution(stateMachineArn=machine_arn, input=json.dumps({"orderId": "o-5", "card": "4242"}))
    assert answer["status"] == "TIMED_OUT"
    assert (answer["stopDate"] - answer["startDate"]).total_seconds() == 300


def test_a_declined_card_fails(sfn):
    machine_arn = create_checkout(sfn, type="EXPRESS")
    answer = sfn.start_sync_execution(stateMachineArn=machine_arn, input=json.dumps({"orderId": "o-6", "card": "0000"}))
    assert (answer["status"], answer["error"]) == ("FAILED", "PaymentDeclined")


def test_an_unknown_machine_is_refused_as_aws_refuses_it(sfn):
    with pytest.raises(sfn.exceptions.StateMachineDoesNotExist):
        sfn.describe_state_machine(stateMachineArn="arn:aws:states:us-east-1:123456789012:stateMachine:nope")
