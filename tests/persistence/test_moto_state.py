"""moto's backends (the AWS services behind integrations and the passthrough endpoint) in the state
directory and in snapshots, as the journal of the requests that built them: what was created through
either way survives a SIGKILL and a restart with the same identifiers, travels in a snapshot, an
older snapshot loads with them empty, a damaged journal is refused, and a pickle (what older
sfn-emulators wrote) is never loaded."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import pickle
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


def _journal_rows(path: Path) -> list[str]:
    with sqlite3.connect(path / DATABASE_NAME) as database:
        rows = [body for (body,) in database.execute("SELECT body FROM moto_journal ORDER BY seq")]
    database.close()
    return rows


@pytest.mark.parametrize(("row", "message"), [
    ("not json", "a request in moto's journal is malformed: JSON is malformed"),
    ('{"type": "sdk", "method": 1}', r"a request in moto's journal is malformed: Expected `str`, got `int` - at `\$.method`"),
    ('{"type": "exec", "code": "import os"}', "a request in moto's journal is malformed: Invalid value 'exec'"),
], ids=["not-json", "wrong-type", "unknown-kind"])
def test_a_damaged_journal_in_the_state_directory_is_refused(tmp_path: Path, row: str, message: str) -> None:
    with Emulator(Settings(state_dir=tmp_path)) as emulator:
        emulator.reset()  # moto's backends are the process's: start from none
        _seed_in_process()
    assert _journal_rows(tmp_path)
    with sqlite3.connect(tmp_path / DATABASE_NAME) as database:
        database.execute("UPDATE moto_journal SET body = ? WHERE seq = (SELECT max(seq) FROM moto_journal)", (row,))
    database.close()
    with pytest.raises(StoreError, match="cannot load the state in .*: " + message):
        Emulator(Settings(state_dir=tmp_path))


@pytest.mark.parametrize(("moto", "message"), [
    ({"format": "sfn-emulator-moto-state"}, "moto's state is not a journal of requests"),
    ({"format": "sfn-emulator-moto-journal", "version": 9, "requests": []}, "moto's journal has format version 9"),
    ({"format": "sfn-emulator-moto-journal", "version": 1, "requests": [{"type": "sdk"}]},
     "moto's journal is malformed: Object missing required field `method`"),
    ({"format": "sfn-emulator-moto-journal", "version": 1, "requests": [
        {"type": "http", "environ": {}, "body": "%%% not base64", "seed": 1}]},
     "moto's journal is malformed: Invalid base64 encoded string"),
], ids=["not-a-journal", "newer-version", "missing-field", "not-base64"])
def test_a_snapshot_with_a_damaged_journal_is_refused_and_changes_nothing(moto: Any, message: str) -> None:
    with Emulator(Settings(clock="manual")) as emulator:
        emulator.reset()
        clients = _seed_in_process()
        before = _views(clients)
        document = json.loads(emulator.export_snapshot())
        document["state"]["moto"] = moto
        document["sha256"] = _digest(document["state"])
        with pytest.raises(SnapshotError, match=message):
            emulator.import_snapshot(json.dumps(document).encode())
        assert _views(clients) == before


def _lambda_function(clients: Any) -> None:
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as archive:
        archive.writestr("f.py", "def h(event, context):\n    return event\n")
    role = clients.client("iam", account=ACCOUNT, region=TEST_REGION).create_role(
        RoleName="kept", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    clients.client("lambda", account=ACCOUNT, region=TEST_REGION).create_function(
        FunctionName="kept", Runtime="python3.11", Role=role, Handler="f.h", Code={"ZipFile": code.getvalue()})


def _subscription(clients: Any) -> None:
    sns = clients.client("sns", account=ACCOUNT, region=TEST_REGION)
    topic = sns.create_topic(Name="kept")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="email", Endpoint="kept@example.com")


def _kms_round_trip(c: Any) -> bool:
    key = c("kms").list_keys()["Keys"][0]["KeyId"]
    sealed = c("kms").encrypt(KeyId=key, Plaintext=b"secret", EncryptionAlgorithm="RSAES_OAEP_SHA_256")
    return c("kms").decrypt(CiphertextBlob=sealed["CiphertextBlob"], KeyId=key,
                            EncryptionAlgorithm="RSAES_OAEP_SHA_256")["Plaintext"] == b"secret"


# service: (make resources, what to read back: the same before and after the journal is replayed)
KEPT_SERVICES: dict[str, tuple[Any, Any]] = {
    "lambda": (_lambda_function, lambda c: c("lambda").get_function(FunctionName="kept")["Configuration"]["FunctionArn"]),
    "kms": (lambda clients: clients.client("kms", account=ACCOUNT, region=TEST_REGION).create_key(
                KeySpec="RSA_2048", KeyUsage="ENCRYPT_DECRYPT"),
            lambda c: c("kms").list_keys()["Keys"]),
    "sns": (_subscription, lambda c: [s["SubscriptionArn"] for s in c("sns").list_subscriptions()["Subscriptions"]]),
    "events": (lambda clients: clients.client("events", account=ACCOUNT, region=TEST_REGION).create_event_bus(Name="kept"),
               lambda c: [bus["Arn"] for bus in c("events").list_event_buses()["EventBuses"]]),
    "secretsmanager": (lambda clients: clients.client("secretsmanager", account=ACCOUNT, region=TEST_REGION)
                       .create_secret(Name="kept", SecretString="s3cret"),
                       lambda c: {key: value for key, value in c("secretsmanager").get_secret_value(SecretId="kept").items()
                                  if key in ("ARN", "SecretString", "VersionId")}),
    "ssm": (lambda clients: clients.client("ssm", account=ACCOUNT, region=TEST_REGION).put_parameter(
                Name="kept", Value="v", Type="String"),
            lambda c: c("ssm").get_parameter(Name="kept")["Parameter"]["Value"]),
}


@pytest.mark.parametrize("service", sorted(KEPT_SERVICES))
def test_a_service_s_resources_come_back_with_the_same_identifiers_after_a_replay(service: str) -> None:
    """Identifiers moto draws at random (ARN suffixes, subscription ids, key ids) are drawn again the same."""
    with Emulator(Settings(clock="manual")) as emulator:
        emulator.reset()
        clients = MotoBackends()
        make, read = KEPT_SERVICES[service]
        make(clients)
        client = lambda name: clients.client(name, account=ACCOUNT, region=TEST_REGION)  # noqa: E731
        before = read(client)
        journal = moto_state.journal()
        emulator.reset()
        assert moto_state.load(journal) == []
        assert read(client) == before
        if service == "kms":  # its key material is new (drawn by the OS), and it works
            assert _kms_round_trip(client)


def test_a_request_moto_refuses_on_replay_is_named_and_the_others_load(capfd: Any) -> None:
    with Emulator(Settings(clock="manual")) as emulator:
        emulator.reset()
        clients = _seed_in_process()
        expected = _views(clients)
        journal = moto_state.journal()
        unknown = moto_state.SdkRequest("POST", "https://no-such-service.example.com/", {}, b"", 1)
        document = json.loads(emulator.export_snapshot())
        document["state"]["moto"] = moto_state.document([unknown, *journal])
        document["sha256"] = _digest(document["state"])
        emulator.reset()
        emulator.import_snapshot(json.dumps(document).encode())
        assert _views(clients) == expected
    assert "moto refused a request of its journal in the snapshot when replayed: request 1: LookupError" in capfd.readouterr().err


class _CreatesAFile:
    """Unpickled, it would create `marker`: what an attacker's pickle could do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return open, (str(self.marker), "w")


def _pickle_payload(marker: Path) -> bytes:
    """A moto-state blob as an older sfn-emulator wrote it (JSON header line, then the pickle), carrying the attack."""
    payload = pickle.dumps(_CreatesAFile(marker))
    header = {"format": "sfn-emulator-moto-state", "version": 1, "moto": "5", "sha256": hashlib.sha256(payload).hexdigest()}
    return json.dumps(header).encode() + b"\n" + payload


def _machines(emulator: Emulator) -> list[dict[str, Any]]:
    return emulator.service.list_state_machines()["stateMachines"]


def test_a_version_2_snapshot_carrying_a_pickle_is_refused_unread(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    with Emulator(Settings(clock="manual")) as emulator:
        emulator.reset()
        emulator.service.create_state_machine(name="before", roleArn=ROLE, definition=json.dumps(
            {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}))
        document = json.loads(emulator.export_snapshot())
        document["state"]["moto"] = base64.b64encode(_pickle_payload(marker)).decode()
        document["state"]["stateMachines"] = []
        document.update(version=2, sha256=_digest(document["state"]))
        with pytest.raises(SnapshotError, match="holds moto's backends as a Python pickle; loading a pickle can run code"):
            emulator.import_snapshot(json.dumps(document).encode())
        assert [m["name"] for m in _machines(emulator)] == ["before"]
    assert not marker.exists()


def test_a_version_3_state_directory_carrying_a_pickle_starts_without_reading_it(tmp_path: Path, capfd: Any) -> None:
    marker = tmp_path / "pwned"
    state_dir = tmp_path / "state"
    with Emulator(Settings(state_dir=state_dir)) as emulator:
        emulator.reset()
    with sqlite3.connect(state_dir / DATABASE_NAME) as database:  # the schema an older sfn-emulator wrote
        database.execute("DROP TABLE moto_journal")
        database.execute("CREATE TABLE moto_state (id INTEGER PRIMARY KEY CHECK (id = 1), body BLOB NOT NULL)")
        database.execute("INSERT INTO moto_state (id, body) VALUES (1, ?)", (_pickle_payload(marker),))
        database.execute("PRAGMA user_version = 3")
    database.close()
    with Emulator(Settings(state_dir=state_dir)) as emulator:
        assert _machines(emulator) == []
    assert not marker.exists()
    assert "held moto's backends as a Python pickle (written by an older sfn-emulator); loading a pickle can run " \
           "code, so it was dropped unread" in capfd.readouterr().err
    assert _journal_rows(state_dir) == []
