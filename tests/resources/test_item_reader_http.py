"""Distributed Map ItemReader and ResultWriter over HTTP with boto3, on the emulator's own S3 (moto).

The test puts its objects with a boto3 S3 client on the emulator's endpoint, runs the machine with
a Step Functions client on the same endpoint, and reads what the ResultWriter wrote the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from flow import ACCOUNT, Flow, Server
from helpers.clients import TEST_REGION

PASS_ITEM = {"StartAt": "PassItem", "States": {"PassItem": {"Type": "Pass", "End": True}}}
FACTS = [{"verdict": "true", "statement_date": "6/11/2008"}, {"verdict": "false", "statement_date": "6/7/2022"}]


@pytest.fixture(scope="module")
def flow(start_server: Callable[..., Server]) -> Flow:
    return Flow(start_server())




def distributed_map(**fields: Any) -> dict[str, Any]:
    """A machine of one Distributed Map state whose items pass through unchanged."""
    processor = {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"}, **PASS_ITEM}
    return {"StartAt": "MapState", "States": {"MapState": {
        "Type": "Map", "Label": "Reader", "ItemProcessor": processor, **fields, "End": True}}}


def get_object(input_type: str, **config: Any) -> dict[str, Any]:
    return {"Resource": "arn:aws:states:::s3:getObject", "ReaderConfig": {"InputType": input_type, **config},
            "Parameters": {"Bucket.$": "$.Bucket", "Key.$": "$.Key"}}


def map_run_arn(flow: Flow, execution_arn: str) -> str:
    started = next(event for event in flow.events(execution_arn) if event["type"] == "MapRunStarted")
    return started["mapRunStartedEventDetails"]["mapRunArn"]


def test_a_json_array_in_s3_is_the_items_and_the_map_run_counts_them(flow: Flow, s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="facts.json", Body=json.dumps(FACTS).encode())

    execution = flow.start(flow.machine(distributed_map(ItemReader=get_object("JSON"))),
                           {"Bucket": bucket, "Key": "facts.json"})
    flow.settle()

    assert json.loads(flow.describe(execution)["output"]) == FACTS
    started = next(event for event in flow.events(execution) if event["type"] == "MapStateStarted")
    assert started["mapStateStartedEventDetails"] == {"length": 0}  # AWS records 0: it reads after this event
    counts = flow.sfn.describe_map_run(mapRunArn=map_run_arn(flow, execution))["itemCounts"]
    assert (counts["total"], counts["succeeded"], counts["resultsWritten"]) == (2, 2, 0)


def test_csv_rows_become_objects_of_strings_up_to_max_items(flow: Flow, s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="rows.csv", Body=b"id;name\n1;Ada\n2;Bo\n3;Cy\n")
    reader = get_object("CSV", CSVHeaderLocation="FIRST_ROW", CSVDelimiter="SEMICOLON", MaxItems=2)

    described = flow.run(distributed_map(ItemReader=reader), {"Bucket": bucket, "Key": "rows.csv"})

    assert json.loads(described["output"]) == [{"id": "1", "name": "Ada"}, {"id": "2", "name": "Bo"}]


def test_list_objects_v2_gives_each_objects_metadata(flow: Flow, s3: Any, bucket: str) -> None:
    for key in ("in/a.txt", "in/b.txt", "out/c.txt"):
        s3.put_object(Bucket=bucket, Key=key, Body=b"hello")
    reader = {"Resource": "arn:aws:states:::s3:listObjectsV2", "Parameters": {"Bucket.$": "$.Bucket", "Prefix": "in/"}}

    described = flow.run(distributed_map(ItemReader=reader), {"Bucket": bucket})

    listed = s3.list_objects_v2(Bucket=bucket, Prefix="in/")["Contents"]
    assert json.loads(described["output"]) == [
        {"Etag": entry["ETag"], "Key": entry["Key"], "LastModified": int(entry["LastModified"].timestamp()),
         "Size": 5, "StorageClass": "STANDARD"}
        for entry in listed
    ]


def test_a_missing_object_fails_the_reader_with_s3s_cause(flow: Flow, bucket: str) -> None:
    described = flow.run(distributed_map(ItemReader=get_object("JSON")), {"Bucket": bucket, "Key": "absent.json"})

    assert described["status"] == "FAILED"
    assert described["error"] == "States.ItemReaderFailed"
    assert described["cause"].startswith("The specified key does not exist.")


def test_the_result_writer_stores_results_and_a_manifest_and_outputs_where(flow: Flow, s3: Any, bucket: str) -> None:
    writer = {"Resource": "arn:aws:states:::s3:putObject", "Parameters": {"Bucket": bucket, "Prefix": "mapJobs"}}

    execution = flow.start(flow.machine(distributed_map(ResultWriter=writer)), ["Hello", "World"])
    flow.settle()

    run_arn = map_run_arn(flow, execution)
    run_id = run_arn.rsplit(":", 1)[-1]
    manifest_key = f"mapJobs/{run_id}/manifest.json"
    assert json.loads(flow.describe(execution)["output"]) == {
        "MapRunArn": run_arn, "ResultWriterDetails": {"Bucket": bucket, "Key": manifest_key}}
    manifest = json.loads(s3.get_object(Bucket=bucket, Key=manifest_key)["Body"].read())
    results_key = f"mapJobs/{run_id}/SUCCEEDED_0.json"
    stored = s3.head_object(Bucket=bucket, Key=results_key)["ContentLength"]
    assert manifest == {"DestinationBucket": bucket, "MapRunArn": run_arn, "ResultFiles": {
        "FAILED": [], "PENDING": [], "SUCCEEDED": [{"Key": results_key, "Size": stored}]}}
    results = json.loads(s3.get_object(Bucket=bucket, Key=results_key)["Body"].read())
    assert [(entry["Input"], entry["Output"], entry["Status"]) for entry in results] == [
        ('"Hello"', '"Hello"', "SUCCEEDED"), ('"World"', '"World"', "SUCCEEDED")]
    children = flow.sfn.list_executions(mapRunArn=run_arn)["executions"]
    assert sorted(entry["ExecutionArn"] for entry in results) == sorted(child["executionArn"] for child in children)
    assert results[0]["StateMachineArn"] == f"arn:aws:states:{TEST_REGION}:{ACCOUNT}:stateMachine:" \
                                            f"{run_arn.split(':')[6].split('/')[0]}/Reader"
    assert flow.sfn.describe_map_run(mapRunArn=run_arn)["itemCounts"]["resultsWritten"] == 2


def test_failed_child_executions_go_to_their_own_file(flow: Flow, s3: Any, bucket: str) -> None:
    processor = {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"}, "StartAt": "Check",
                 "States": {"Check": {"Type": "Choice", "Choices": [{"Variable": "$", "StringEquals": "bad",
                                                                      "Next": "Refuse"}], "Default": "Accept"},
                            "Refuse": {"Type": "Fail", "Error": "Bad", "Cause": "bad item"},
                            "Accept": {"Type": "Pass", "End": True}}}
    definition = {"StartAt": "MapState", "States": {"MapState": {
        "Type": "Map", "ItemProcessor": processor, "ToleratedFailurePercentage": 50,
        "ResultWriter": {"Resource": "arn:aws:states:::s3:putObject", "Parameters": {"Bucket": bucket}},
        "End": True}}}

    described = flow.run(definition, ["good", "bad"])

    manifest_key = json.loads(described["output"])["ResultWriterDetails"]["Key"]
    manifest = json.loads(s3.get_object(Bucket=bucket, Key=manifest_key)["Body"].read())
    assert manifest_key.count("/") == 1  # no Prefix: <map run id>/manifest.json
    failed_key = manifest["ResultFiles"]["FAILED"][0]["Key"]
    failed = json.loads(s3.get_object(Bucket=bucket, Key=failed_key)["Body"].read())
    assert [(entry["Input"], entry["Status"], entry["Error"], entry["Cause"]) for entry in failed] == [
        ('"bad"', "FAILED", "Bad", "bad item")]
    assert "Output" not in failed[0]
    assert len(manifest["ResultFiles"]["SUCCEEDED"]) == 1
