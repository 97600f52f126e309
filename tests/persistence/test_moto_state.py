"""moto's backends (the AWS services behind integrations and the passthrough endpoint) in the state
directory and in snapshots: what was created through either way survives a SIGKILL and a restart,
travels in a snapshot, an older snapshot loads with them empty, and a corrupted blob is refused."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import time
import zipfile
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from helpers.clients import TEST_REGION, make_client

from sfn_emulator.config import Settings
from sfn_emulator.persistence import SnapshotError, StoreError, snapshot
from sfn_emulator.persistence.database import DATABASE_NAME
from sfn_emulator.persistence.records import dumps
from sfn_emulator.resources.aws import moto_state
from sfn_emulator.resources.aws.backends import MotoBackends
from sfn_emulator.runtime import Emulator

ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/persist"
POLL_BOUND = 600  # polls of an execution's status at most (each one a request; no timing assumed)


def aws(endpoint_url: str, service: str) -> Any:
    """A boto3 client of another AWS service on the emulator's endpoint (the passthrough)."""
    return boto3.client(service, endpoint_url=endpoint_url, region_name=TEST_REGION, aws_access_key_id="testing",
                        aws_secret_access_key="testing", config=Config(s3={"addressing_style": "path"},
                                                                      retries={"max_attempts": 0}))


def _table(dynamodb: Any, name: str) -> None:
    dynamodb.create_table(TableName=name, KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                          BillingMode="PAY_PER_REQUEST")


def _tasks(queue_url: str) -> dict[str, Any]:
    """A workflow whose Task integrations create a bucket and an object, send a message, put an item."""
    def task(resource: str, parameters: dict[str, Any], next_state: str | None) -> dict[str, Any]:
        return {"Type": "Task", "Resource": resource, "Parameters": parameters, "ResultPath": None,
                **({"Next": next_state} if next_state else {"End": True})}

    return {"StartAt": "Bucket", "States": {
        "Bucket": task("arn:aws:states:::aws-sdk:s3:createBucket", {"Bucket": "task-bucket"}, "Object"),
        "Object": task("arn:aws:states:::aws-sdk:s3:putObject",
                       {"Bucket": "task-bucket", "Key": "task.txt", "Body": "from a task"}, "Message"),
        "Message": task("arn:aws:states:::sqs:sendMessage", {"QueueUrl": queue_url, "MessageBody": "from a task"}, "Item"),
        "Item": task("arn:aws:states:::dynamodb:putItem", {"TableName": "items", "Item": {"id": {"S": "from-task"}}}, None),
    }}


def _finished(sfn: Any, execution_arn: str) -> dict[str, Any]:
    for _ in range(POLL_BOUND):
        described = sfn.describe_execution(executionArn=execution_arn)
        if described["status"] != "RUNNING":
            return described
        time.sleep(0.05)  # between polls only: the bound is a count of polls
    raise AssertionError(f"{execution_arn} still running after {POLL_BOUND} polls")


def _seed_over_http(url: str) -> None:
    """Resources made through the passthrough and through Task integrations."""
    s3, sqs, dynamodb = aws(url, "s3"), aws(url, "sqs"), aws(url, "dynamodb")
    s3.create_bucket(Bucket="http-bucket")
    s3.put_object(Bucket="http-bucket", Key="http.txt", Body=b"from boto3")
    queue_url = sqs.create_queue(QueueName="kept")["QueueUrl"]
    sqs.send_message(QueueUrl=queue_url, MessageBody="from boto3")
    _table(dynamodb, "items")
    dynamodb.put_item(TableName="items", Item={"id": {"S": "from-boto3"}})
    sfn = make_client(url)
    machine = sfn.create_state_machine(name="aws", definition=json.dumps(_tasks(queue_url)),
                                       roleArn=ROLE)["stateMachineArn"]
    described = _finished(sfn, sfn.start_execution(stateMachineArn=machine)["executionArn"])
    assert described["status"] == "SUCCEEDED", described


def _assert_seeded(url: str) -> None:
    s3, sqs, dynamodb = aws(url, "s3"), aws(url, "sqs"), aws(url, "dynamodb")
    assert s3.get_object(Bucket="http-bucket", Key="http.txt")["Body"].read() == b"from boto3"
    # a blob member given a string is written as its JSON text, as the SDK Step Functions runs on does
    assert s3.get_object(Bucket="task-bucket", Key="task.txt")["Body"].read() == b'"from a task"'
    queue_url = sqs.get_queue_url(QueueName="kept")["QueueUrl"]
    received = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    assert sorted(message["Body"] for message in received) == ["from a task", "from boto3"]
    items = dynamodb.scan(TableName="items")["Items"]
    assert sorted(item["id"]["S"] for item in items) == ["from-boto3", "from-task"]


def test_aws_resources_made_over_http_and_by_tasks_survive_a_sigkill(servers: Any, tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    first = servers(state_dir, "--clock", "manual")
    _seed_over_http(first.endpoint_url)
    first.kill()
    second = servers(state_dir)
    _assert_seeded(second.endpoint_url)


def test_a_reset_is_kept_too(tmp_path: Path) -> None:
    clients = MotoBackends()
    with Emulator(Settings(state_dir=tmp_path)) as emulator:
        clients.client("sqs", account=ACCOUNT, region=TEST_REGION).create_queue(QueueName="forgotten")
        emulator.reset()
    with Emulator(Settings(state_dir=tmp_path)):
        assert "QueueUrls" not in clients.client("sqs", account=ACCOUNT, region=TEST_REGION).list_queues()


def _seed_in_process() -> Any:
    """Resources made by the integrations' clients: a bucket with an object, a queue with a message, an item."""
    clients = MotoBackends()
    s3 = clients.client("s3", account=ACCOUNT, region=TEST_REGION)
    s3.create_bucket(Bucket="snap-bucket")
    s3.put_object(Bucket="snap-bucket", Key="k", Body=b"kept")
    sqs = clients.client("sqs", account=ACCOUNT, region=TEST_REGION)
    sqs.send_message(QueueUrl=sqs.create_queue(QueueName="snap")["QueueUrl"], MessageBody="kept")
    dynamodb = clients.client("dynamodb", account=ACCOUNT, region=TEST_REGION)
    _table(dynamodb, "snap")
    dynamodb.put_item(TableName="snap", Item={"id": {"S": "kept"}})
    return clients


def _views(clients: Any) -> dict[str, Any]:
    s3 = clients.client("s3", account=ACCOUNT, region=TEST_REGION)
    sqs = clients.client("sqs", account=ACCOUNT, region=TEST_REGION)
    dynamodb = clients.client("dynamodb", account=ACCOUNT, region=TEST_REGION)
    queues = sqs.list_queues().get("QueueUrls", [])
    return {
        "buckets": [bucket["Name"] for bucket in s3.list_buckets()["Buckets"]],
        "objects": {bucket["Name"]: [(key["Key"], s3.get_object(Bucket=bucket["Name"], Key=key["Key"])["Body"].read())
                                     for key in s3.list_objects_v2(Bucket=bucket["Name"]).get("Contents", [])]
                    for bucket in s3.list_buckets()["Buckets"]},
        "messages": {url: [m["Body"] for m in sqs.receive_message(QueueUrl=url, VisibilityTimeout=0).get("Messages", [])]
                     for url in queues},
        "items": {name: dynamodb.scan(TableName=name)["Items"] for name in dynamodb.list_tables()["TableNames"]},
    }


def test_a_snapshot_carries_moto_s_backends() -> None:
    with Emulator(Settings(clock="manual")) as emulator:
        emulator.reset()
        clients = _seed_in_process()
        expected = _views(clients)
        assert expected["objects"] == {"snap-bucket": [("k", b"kept")]} and expected["items"]["snap"]
        data = emulator.export_snapshot()
        emulator.reset()
        assert _views(clients)["buckets"] == []
        emulator.import_snapshot(data)
        assert _views(clients) == expected


def test_a_version_1_snapshot_loads_with_empty_backends() -> None:
    with Emulator(Settings(clock="manual")) as emulator:
        emulator.reset()
        document = json.loads(emulator.export_snapshot())
        clients = _seed_in_process()
        del document["state"]["moto"]
        document.update(version=1, sha256=_digest(document["state"]))
        emulator.import_snapshot(json.dumps(document).encode())
        assert _views(clients) == {"buckets": [], "objects": {}, "messages": {}, "items": {}}


def _digest(state: dict[str, Any]) -> str:
    """The digest a snapshot file carries of its `state` (as written by an sfn-emulator)."""
    return hashlib.sha256(dumps(state).encode("utf-8")).hexdigest()


def _flipped(blob: bytes) -> bytes:
    """The blob with one byte of its pickle changed."""
    return blob[:-5] + bytes([blob[-5] ^ 0xFF]) + blob[-4:]


@pytest.mark.parametrize(("damage", "message"), [
    (_flipped, "moto's state is corrupted: it does not match its sha256 digest"),
    (lambda blob: b"not a blob", "moto's state is not an sfn-emulator moto-state blob"),
    (lambda blob: blob.replace(b'"version":1', b'"version":9', 1), "moto's state has format version 9"),
], ids=["flipped-byte", "not-a-blob", "newer-version"])
def test_a_damaged_blob_in_the_state_directory_is_refused(tmp_path: Path, damage: Any, message: str) -> None:
    with Emulator(Settings(state_dir=tmp_path)) as emulator:
        emulator.reset()  # moto's backends are the process's: start from none
        _seed_in_process()
    with sqlite3.connect(tmp_path / DATABASE_NAME) as database:
        [(blob,)] = database.execute("SELECT body FROM moto_state").fetchall()
        database.execute("UPDATE moto_state SET body = ?", (damage(bytes(blob)),))
    database.close()
    with pytest.raises(StoreError, match="cannot load the state in .*: " + message):
        Emulator(Settings(state_dir=tmp_path))


def test_a_snapshot_with_a_damaged_blob_is_refused_and_changes_nothing() -> None:
    with Emulator(Settings(clock="manual")) as emulator:
        emulator.reset()
        clients = _seed_in_process()
        state = snapshot.decode(emulator.export_snapshot())
        before = _views(clients)
        state["moto"] = _flipped(state["moto"])
        with pytest.raises(SnapshotError, match="moto's state is corrupted"):
            emulator.import_snapshot(snapshot.encode(state))
        document = json.loads(emulator.export_snapshot())
        document["state"]["moto"] = "%%% not base64"
        document["sha256"] = _digest(document["state"])
        with pytest.raises(SnapshotError, match="not valid base64"):
            emulator.import_snapshot(json.dumps(document).encode())
        assert _views(clients) == before


def test_thread_primitives_are_recreated_empty_by_our_pickler_only() -> None:
    import copyreg
    import threading

    assert type(threading.RLock()) not in copyreg.dispatch_table  # the process's pickling is unchanged
    clients = MotoBackends()
    clients.client("sqs", account=ACCOUNT, region=TEST_REGION).create_queue(QueueName="locked")
    moto_state.load(moto_state.dump().blob)
    sqs = clients.client("sqs", account=ACCOUNT, region=TEST_REGION)
    url = sqs.get_queue_url(QueueName="locked")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="after")  # the recreated lock works
    assert [m["Body"] for m in sqs.receive_message(QueueUrl=url)["Messages"]] == ["after"]


def _lambda_function(clients: Any) -> None:
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as archive:
        archive.writestr("f.py", "def h(event, context):\n    return event\n")
    role = clients.client("iam", account=ACCOUNT, region=TEST_REGION).create_role(
        RoleName="kept", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    clients.client("lambda", account=ACCOUNT, region=TEST_REGION).create_function(
        FunctionName="kept", Runtime="python3.11", Role=role, Handler="f.h", Code={"ZipFile": code.getvalue()})


# service: (make a resource, read it back after a dump and load), for the services moto needs help to copy
KEPT_SERVICES: dict[str, tuple[Any, Any]] = {
    "lambda": (_lambda_function,
               lambda c: c("lambda").get_function(FunctionName="kept")["Configuration"]["FunctionName"] == "kept"),
    "kms": (lambda clients: clients.client("kms", account=ACCOUNT, region=TEST_REGION).create_key(
                KeySpec="RSA_2048", KeyUsage="ENCRYPT_DECRYPT"),
            lambda c: c("kms").decrypt(
                CiphertextBlob=c("kms").encrypt(KeyId=c("kms").list_keys()["Keys"][0]["KeyId"], Plaintext=b"secret",
                                                EncryptionAlgorithm="RSAES_OAEP_SHA_256")["CiphertextBlob"],
                KeyId=c("kms").list_keys()["Keys"][0]["KeyId"], EncryptionAlgorithm="RSAES_OAEP_SHA_256")["Plaintext"]
            == b"secret"),
    "sns": (lambda clients: clients.client("sns", account=ACCOUNT, region=TEST_REGION).create_topic(Name="kept"),
            lambda c: [t["TopicArn"].rsplit(":", 1)[1] for t in c("sns").list_topics()["Topics"]] == ["kept"]),
    "events": (lambda clients: clients.client("events", account=ACCOUNT, region=TEST_REGION).create_event_bus(Name="kept"),
               lambda c: "kept" in [bus["Name"] for bus in c("events").list_event_buses()["EventBuses"]]),
    "secretsmanager": (lambda clients: clients.client("secretsmanager", account=ACCOUNT, region=TEST_REGION)
                       .create_secret(Name="kept", SecretString="s3cret"),
                       lambda c: c("secretsmanager").get_secret_value(SecretId="kept")["SecretString"] == "s3cret"),
}


@pytest.mark.parametrize("service", sorted(KEPT_SERVICES))
def test_a_service_s_backend_is_kept_and_usable_after_loading(service: str) -> None:
    with Emulator(Settings(clock="manual")) as emulator:
        emulator.reset()
        clients = MotoBackends()
        make, read = KEPT_SERVICES[service]
        make(clients)
        dumped = moto_state.dump()
        assert dumped.skipped == []
        emulator.reset()
        moto_state.load(dumped.blob)
        assert read(lambda name: clients.client(name, account=ACCOUNT, region=TEST_REGION))


def test_a_backend_whose_pickle_does_not_load_back_is_left_out_and_named() -> None:
    """SSM's parameters are a dict subclass whose constructor needs arguments pickle does not give."""
    with Emulator(Settings(clock="manual")) as emulator:
        emulator.reset()
        clients = MotoBackends()
        clients.client("ssm", account=ACCOUNT, region=TEST_REGION).put_parameter(Name="p", Value="v", Type="String")
        clients.client("sqs", account=ACCOUNT, region=TEST_REGION).create_queue(QueueName="beside")
        dumped = moto_state.dump()
        assert [reason.split(":")[0] for reason in dumped.skipped] == [f"ssm {ACCOUNT} {TEST_REGION}"]
        assert "does not load back" in dumped.skipped[0]
        emulator.reset()
        moto_state.load(dumped.blob)
        assert clients.client("sqs", account=ACCOUNT, region=TEST_REGION).list_queues()["QueueUrls"]


def test_a_blob_this_moto_cannot_load_stops_the_start_clearly(tmp_path: Path) -> None:
    with Emulator(Settings(state_dir=tmp_path)) as emulator:
        emulator.reset()
        _seed_in_process()
    unknown = moto_state._encode([("moto.s3.models", "backends_of_a_later_moto", {})])  # sound blob, unknown holder
    with sqlite3.connect(tmp_path / DATABASE_NAME) as database:
        database.execute("UPDATE moto_state SET body = ?", (unknown,))
    database.close()
    with pytest.raises(StoreError, match=r"moto's state \(written by moto .*\) cannot be loaded by moto .*: AttributeError"):
        Emulator(Settings(state_dir=tmp_path))
