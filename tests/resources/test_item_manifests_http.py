"""A Distributed Map reading an S3 Inventory report over HTTP with boto3: the manifest and its
gzip-compressed CSV inventory files are put on the emulator's own S3 (moto), as S3 Inventory writes them."""

from __future__ import annotations

import gzip
import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from flow import Flow, Server


@pytest.fixture(scope="module")
def flow(start_server: Callable[..., Server]) -> Flow:
    return Flow(start_server())




def inventory_reader(**config: Any) -> dict[str, Any]:
    processor = {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "EXPRESS"},
                 "StartAt": "PassItem", "States": {"PassItem": {"Type": "Pass", "End": True}}}
    reader = {"Resource": "arn:aws:states:::s3:getObject", "ReaderConfig": {"InputType": "MANIFEST", **config},
              "Parameters": {"Bucket.$": "$.Bucket", "Key.$": "$.Key"}}
    return {"StartAt": "Inventory", "States": {"Inventory": {
        "Type": "Map", "ItemReader": reader, "ItemProcessor": processor, "End": True}}}


def put_inventory(s3: Any, bucket: str, rows: list[list[str]], *, compressed: bool) -> str:
    """An inventory of `rows` (Bucket, Key, Size) in one data file; returns the manifest's key."""
    data_key = f"source/config/data/{uuid.uuid4()}.csv" + (".gz" if compressed else "")
    text = "".join(",".join(f'"{value}"' for value in row) + "\n" for row in rows).encode("utf-8")
    s3.put_object(Bucket=bucket, Key=data_key, Body=gzip.compress(text) if compressed else text)
    manifest = {"sourceBucket": "source", "destinationBucket": f"arn:aws:s3:::{bucket}", "version": "2016-11-30",
                "fileFormat": "CSV", "fileSchema": "Bucket, Key, Size",
                "files": [{"key": data_key, "size": 1, "MD5checksum": "0"}]}
    manifest_key = "source/config/2024-01-01T00-00Z/manifest.json"
    s3.put_object(Bucket=bucket, Key=manifest_key, Body=json.dumps(manifest).encode("utf-8"))
    return manifest_key


@pytest.mark.parametrize("compressed", [True, False])
def test_each_inventory_row_is_an_item_of_strings(flow: Flow, s3: Any, bucket: str, compressed: bool) -> None:
    rows = [["source", "photos/ä.jpg", "27034"], ["source", "photos/b.jpg", "0"], ["source", "c.txt", "5"]]
    manifest_key = put_inventory(s3, bucket, rows, compressed=compressed)

    described = flow.run(inventory_reader(MaxItems=2), {"Bucket": bucket, "Key": manifest_key})

    assert described["status"] == "SUCCEEDED", described
    assert json.loads(described["output"]) == [
        {"Bucket": "source", "Key": "photos/ä.jpg", "Size": "27034"},
        {"Bucket": "source", "Key": "photos/b.jpg", "Size": "0"}]


def test_a_missing_inventory_file_fails_the_reader(flow: Flow, s3: Any, bucket: str) -> None:
    manifest_key = put_inventory(s3, bucket, [["source", "a", "1"]], compressed=True)
    listed = s3.list_objects_v2(Bucket=bucket, Prefix="source/config/data/")["Contents"][0]["Key"]
    s3.delete_object(Bucket=bucket, Key=listed)

    described = flow.run(inventory_reader(), {"Bucket": bucket, "Key": manifest_key})

    assert (described["status"], described["error"]) == ("FAILED", "States.ItemReaderFailed")
    assert described["cause"].startswith("The specified key does not exist.")
