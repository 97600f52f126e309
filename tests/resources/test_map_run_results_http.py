"""A Distributed Map's map run over HTTP with boto3: DescribeMapRun's item and execution counts under an
ItemBatcher, UpdateMapRun's validation, and what a ResultWriter's WriterConfig makes of the files it
writes to the emulator's own S3 (moto)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from flow import Flow, Server

DISTRIBUTED = {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"}


@pytest.fixture(scope="module")
def flow(start_server: Callable[..., Server]) -> Flow:
    return Flow(start_server())




def distributed_map(processor_states: dict[str, Any], start_at: str, **fields: Any) -> dict[str, Any]:
    processor = {"ProcessorConfig": DISTRIBUTED, "StartAt": start_at, "States": processor_states}
    return {"StartAt": "Fan", "States": {"Fan": {"Type": "Map", "ItemProcessor": processor, **fields, "End": True}}}


def map_run_arn(flow: Flow, execution_arn: str) -> str:
    started = next(event for event in flow.events(execution_arn) if event["type"] == "MapRunStarted")
    return started["mapRunStartedEventDetails"]["mapRunArn"]


# Each child echoes its input twice: `[input, input]`, or fails when its input is "bad".
PAIR_OR_FAIL = {
    "Check": {"Type": "Choice", "Choices": [{"Variable": "$", "StringEquals": "bad", "Next": "Refuse"}],
              "Default": "Pair"},
    "Refuse": {"Type": "Fail", "Error": "Bad", "Cause": "bad item"},
    "Pair": {"Type": "Pass", "Parameters": {"pair.$": "States.Array($, $)"}, "OutputPath": "$.pair", "End": True},
}


def test_item_counts_count_items_and_execution_counts_count_batches(flow: Flow) -> None:
    definition = distributed_map({"Done": {"Type": "Pass", "End": True}}, "Done",
                                 ItemBatcher={"MaxItemsPerBatch": 2})

    execution = flow.start(flow.machine(definition), [1, 2, 3, 4, 5])
    flow.settle()

    described = flow.sfn.describe_map_run(mapRunArn=map_run_arn(flow, execution))
    items, executions = described["itemCounts"], described["executionCounts"]
    assert (items["total"], items["succeeded"], items["pending"], items["running"]) == (5, 5, 0, 0)
    assert (executions["total"], executions["succeeded"], executions["pending"]) == (3, 3, 0)


def test_without_a_batcher_item_and_execution_counts_agree(flow: Flow) -> None:
    definition = distributed_map(PAIR_OR_FAIL, "Check", ToleratedFailureCount=1)

    execution = flow.start(flow.machine(definition), ["a", "bad", "c"])
    flow.settle()

    described = flow.sfn.describe_map_run(mapRunArn=map_run_arn(flow, execution))
    assert described["itemCounts"] == described["executionCounts"]
    assert (described["itemCounts"]["succeeded"], described["itemCounts"]["failed"]) == (2, 1)


@pytest.mark.parametrize("update, message", [
    ({"toleratedFailurePercentage": 100.5}, "Member must have value less than or equal to 100"),
    ({}, "at least one"),
])
def test_update_map_run_refuses_values_out_of_range(flow: Flow, update: dict[str, Any], message: str) -> None:
    execution = flow.start(flow.machine(distributed_map({"Done": {"Type": "Pass", "End": True}}, "Done")), [1])
    flow.settle()

    with pytest.raises(ClientError) as refused:
        flow.sfn.update_map_run(mapRunArn=map_run_arn(flow, execution), **update)

    assert refused.value.response["Error"]["Code"] == "ValidationException"
    assert message in refused.value.response["Error"]["Message"]


def test_update_map_run_changes_what_describe_map_run_reports(flow: Flow) -> None:
    activity = flow.sfn.create_activity(name=f"items-{uuid.uuid4().hex[:12]}")["activityArn"]
    definition = distributed_map({"Work": {"Type": "Task", "Resource": activity, "End": True}}, "Work")
    execution = flow.start(flow.machine(definition), [1])
    flow.settle()
    run_arn = map_run_arn(flow, execution)

    flow.sfn.update_map_run(mapRunArn=run_arn, maxConcurrency=7, toleratedFailureCount=3,
                            toleratedFailurePercentage=12.5)

    described = flow.sfn.describe_map_run(mapRunArn=run_arn)
    assert (described["maxConcurrency"], described["toleratedFailureCount"],
            described["toleratedFailurePercentage"]) == (7, 3, 12.5)
    flow.sfn.stop_execution(executionArn=execution)


def test_update_map_run_refuses_a_completed_map_run(flow: Flow) -> None:
    """ValidationException with the reason CANNOT_UPDATE_COMPLETED_MAP_RUN (API reference, ValidationException)."""
    execution = flow.start(flow.machine(distributed_map({"Done": {"Type": "Pass", "End": True}}, "Done")), [1])
    flow.settle()

    with pytest.raises(ClientError) as refused:
        flow.sfn.update_map_run(mapRunArn=map_run_arn(flow, execution), maxConcurrency=7)

    assert refused.value.response["Error"]["Code"] == "ValidationException"
    assert refused.value.response["reason"] == "CANNOT_UPDATE_COMPLETED_MAP_RUN"


def _written(s3: Any, bucket: str, key: str) -> list[Any]:
    text = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode("utf-8")
    if key.endswith(".jsonl"):
        assert text.endswith("\n")
        return [json.loads(line) for line in text.splitlines()]
    return json.loads(text)


def _succeeded_as(transformation: str | None) -> list[Any]:
    """What the SUCCEEDED file holds for items "a" and "c" (compared on outputs for NONE)."""
    if transformation == "COMPACT":
        return [["a", "a"], ["c", "c"]]
    if transformation == "FLATTEN":
        return ["a", "a", "c", "c"]
    return ['["a","a"]', '["c","c"]']  # NONE: each execution's entry, whose Output is JSON text


@pytest.mark.parametrize("transformation", [None, "NONE", "COMPACT", "FLATTEN"])
@pytest.mark.parametrize("output_type", [None, "JSON", "JSONL"])
def test_the_writer_config_shapes_the_written_files(flow: Flow, s3: Any, bucket: str,
                                                    transformation: str | None, output_type: str | None) -> None:
    writer: dict[str, Any] = {"Resource": "arn:aws:states:::s3:putObject",
                              "Parameters": {"Bucket": bucket, "Prefix": "out"}}
    config = {key: value for key, value in (("Transformation", transformation), ("OutputType", output_type))
              if value is not None}
    if config:
        writer["WriterConfig"] = config
    definition = distributed_map(PAIR_OR_FAIL, "Check", ResultWriter=writer, ToleratedFailureCount=1)

    described = flow.run(definition, ["a", "bad", "c"])

    assert described["status"] == "SUCCEEDED"
    manifest_key = json.loads(described["output"])["ResultWriterDetails"]["Key"]
    manifest = json.loads(s3.get_object(Bucket=bucket, Key=manifest_key)["Body"].read())
    extension = "jsonl" if output_type == "JSONL" else "json"
    folder = manifest_key.rsplit("/", 1)[0]
    files = manifest["ResultFiles"]
    assert [entry["Key"] for entry in files["SUCCEEDED"]] == [f"{folder}/SUCCEEDED_0.{extension}"]
    assert [entry["Key"] for entry in files["FAILED"]] == [f"{folder}/FAILED_0.{extension}"]
    assert files["PENDING"] == []
    for entries in (files["SUCCEEDED"], files["FAILED"]):
        stored = s3.head_object(Bucket=bucket, Key=entries[0]["Key"])["ContentLength"]
        assert entries[0]["Size"] == stored
    succeeded = _written(s3, bucket, files["SUCCEEDED"][0]["Key"])
    if transformation in (None, "NONE"):
        succeeded = [entry["Output"] for entry in succeeded]
    assert succeeded == _succeeded_as(transformation)
    failed = _written(s3, bucket, files["FAILED"][0]["Key"])  # a failed execution is always written in full
    assert [(entry["Input"], entry["Status"], entry["Error"], entry["Cause"]) for entry in failed] == [
        ('"bad"', "FAILED", "Bad", "bad item")]


def test_update_map_run_applies_to_the_run_in_progress(flow: Flow) -> None:
    """UpdateMapRun changes a running map run (API reference): more children run at once after a
    higher maxConcurrency, and a failure within the new toleratedFailureCount no longer fails the run."""
    activity = flow.sfn.create_activity(name=f"items-{uuid.uuid4().hex[:12]}")["activityArn"]
    definition = distributed_map({"Work": {"Type": "Task", "Resource": activity, "End": True}}, "Work",
                                 MaxConcurrency=1)
    execution = flow.start(flow.machine(definition), ["a", "b", "c"])
    flow.settle()
    run_arn = map_run_arn(flow, execution)
    assert flow.sfn.describe_map_run(mapRunArn=run_arn)["executionCounts"]["running"] == 1

    flow.sfn.update_map_run(mapRunArn=run_arn, maxConcurrency=3, toleratedFailureCount=1)
    flow.settle()

    counts = flow.sfn.describe_map_run(mapRunArn=run_arn)["executionCounts"]
    assert (counts["running"], counts["pending"]) == (3, 0)  # the new concurrency applies at once
    first = flow.sfn.get_activity_task(activityArn=activity)
    flow.sfn.send_task_failure(taskToken=first["taskToken"], error="Bad", cause="first item")
    flow.settle()
    counts = flow.sfn.describe_map_run(mapRunArn=run_arn)["executionCounts"]
    assert (counts["failed"], counts["running"]) == (1, 2)  # tolerated now: the run goes on
    for _ in range(2):
        task = flow.sfn.get_activity_task(activityArn=activity)
        flow.sfn.send_task_success(taskToken=task["taskToken"], output=task["input"])
    flow.settle()
    assert flow.describe(execution)["status"] == "SUCCEEDED"


def test_a_map_runs_children_name_it_and_count_their_items(flow: Flow) -> None:
    """API reference: DescribeExecution gives a child execution's mapRunArn; ListExecutions by mapRunArn
    gives each child's mapRunArn and itemCount (its batch's size), and neither when listed by machine."""
    definition = distributed_map({"Done": {"Type": "Pass", "End": True}}, "Done", ItemBatcher={"MaxItemsPerBatch": 2})
    machine = flow.machine(definition)
    execution = flow.start(machine, [1, 2, 3])
    flow.settle()
    run_arn = map_run_arn(flow, execution)

    children = flow.sfn.list_executions(mapRunArn=run_arn)["executions"]

    assert sorted(child["itemCount"] for child in children) == [1, 2]
    assert {child["mapRunArn"] for child in children} == {run_arn}
    assert flow.sfn.describe_execution(executionArn=children[0]["executionArn"])["mapRunArn"] == run_arn
    assert "mapRunArn" not in flow.describe(execution)
    listed = flow.sfn.list_executions(stateMachineArn=machine)["executions"]
    assert [("mapRunArn" in item, "itemCount" in item) for item in listed] == [(False, False)]


def test_a_failed_child_is_redriven_only_through_its_map_run(flow: Flow) -> None:
    """API reference: a failed child of a map run is REDRIVABLE_BY_MAP_RUN (RedriveExecution on it is
    refused), and DescribeStateMachineForExecution names its map run and the Map's Label."""
    definition = distributed_map(PAIR_OR_FAIL, "Check", ToleratedFailureCount=1, Label="Pairs")
    execution = flow.start(flow.machine(definition), ["bad"])
    flow.settle()
    run_arn = map_run_arn(flow, execution)
    child = flow.sfn.list_executions(mapRunArn=run_arn)["executions"][0]["executionArn"]

    assert flow.sfn.describe_execution(executionArn=child)["redriveStatus"] == "REDRIVABLE_BY_MAP_RUN"
    with pytest.raises(ClientError) as refused:
        flow.sfn.redrive_execution(executionArn=child)
    assert refused.value.response["Error"]["Code"] == "ExecutionNotRedrivable"
    described = flow.sfn.describe_state_machine_for_execution(executionArn=child)
    assert (described["mapRunArn"], described["label"]) == (run_arn, "Pairs")
    assert "mapRunArn" not in flow.sfn.describe_state_machine_for_execution(executionArn=execution)


def test_describe_state_machine_reads_a_map_runs_qualified_machine_arn(flow: Flow) -> None:
    """API reference, DescribeStateMachine: `...:stateMachine:NAME/LABEL` names a Distributed Map of NAME;
    it is described as NAME with the `label`, and a label no Distributed Map has names nothing."""
    definition = distributed_map({"Done": {"Type": "Pass", "End": True}}, "Done", Label="Fanout")
    machine = flow.machine(definition)

    described = flow.sfn.describe_state_machine(stateMachineArn=f"{machine}/Fanout")

    assert (described["stateMachineArn"], described["label"]) == (f"{machine}/Fanout", "Fanout")
    assert json.loads(described["definition"]) == definition
    assert described["name"] == flow.sfn.describe_state_machine(stateMachineArn=machine)["name"]
    with pytest.raises(ClientError) as refused:
        flow.sfn.describe_state_machine(stateMachineArn=f"{machine}/Elsewhere")
    assert refused.value.response["Error"]["Code"] == "StateMachineDoesNotExist"
