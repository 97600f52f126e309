"""Distributed Map's ItemReader on Parquet objects over HTTP with boto3 (the `parquet` extra):
one item per row, the columns' types kept, as a single object, a folder's objects loaded and
flattened, and the objects of an Athena manifest; without pyarrow, an error naming the extra."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from flow import Flow, Server

PASS_ITEM = {"StartAt": "PassItem", "States": {"PassItem": {"Type": "Pass", "End": True}}}
PROCESSOR = {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"}, **PASS_ITEM}
MOMENT = datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=timezone.utc)
EPOCH_MILLIS = 1714979289123

# (column type, a value as pyarrow takes it, the value the item holds)
COLUMNS = [
    ("int64", pa.int64(), 42, 42),
    ("int32", pa.int32(), -7, -7),
    ("double", pa.float64(), 2.5, 2.5),
    ("string", pa.string(), "Ada", "Ada"),
    ("bool", pa.bool_(), True, True),
    ("null", pa.int64(), None, None),
    ("list", pa.list_(pa.int64()), [1, 2], [1, 2]),
    ("struct", pa.struct([("city", pa.string()), ("zip", pa.int32())]), {"city": "Oslo", "zip": 150},
     {"city": "Oslo", "zip": 150}),
    ("map", pa.map_(pa.string(), pa.int64()), [("a", 1), ("b", 2)], {"a": 1, "b": 2}),
    ("timestamp in ms", pa.timestamp("ms", tz="UTC"), MOMENT, EPOCH_MILLIS),
    ("timestamp in µs without zone", pa.timestamp("us"), MOMENT.replace(tzinfo=None), EPOCH_MILLIS),
    ("date", pa.date32(), date(2024, 5, 6), "2024-05-06"),
    ("decimal", pa.decimal128(10, 2), Decimal("12.50"), 12.5),
]


def parquet(rows: list[dict[str, Any]], schema: pa.Schema | None = None) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), sink)
    return sink.getvalue()


def distributed_map(reader: dict[str, Any]) -> dict[str, Any]:
    return {"StartAt": "MapState", "States": {"MapState": {"Type": "Map", "ItemProcessor": PROCESSOR,
                                                            "ItemReader": reader, "End": True}}}


def get_object(**config: Any) -> dict[str, Any]:
    return {"Resource": "arn:aws:states:::s3:getObject", "ReaderConfig": {"InputType": "PARQUET", **config},
            "Parameters": {"Bucket.$": "$.Bucket", "Key.$": "$.Key"}}


@pytest.fixture(scope="module")
def flow(start_server: Callable[..., Server]) -> Flow:
    return Flow(start_server())


@pytest.mark.parametrize(("column", "value", "expected"), [case[1:] for case in COLUMNS], ids=[case[0] for case in COLUMNS])
def test_each_row_is_an_item_with_its_columns_types(flow: Flow, s3: Any, bucket: str, column: pa.DataType,
                                                    value: Any, expected: Any) -> None:
    schema = pa.schema([("id", pa.int64()), ("value", column)])
    s3.put_object(Bucket=bucket, Key="rows.parquet", Body=parquet([{"id": 1, "value": value}], schema))
    described = flow.run(distributed_map(get_object()), {"Bucket": bucket, "Key": "rows.parquet"})
    assert json.loads(described["output"]) == [{"id": 1, "value": expected}]


def test_max_items_keeps_the_first_rows(flow: Flow, s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="rows.parquet", Body=parquet([{"n": n} for n in range(5)]))
    described = flow.run(distributed_map(get_object(MaxItems=2)), {"Bucket": bucket, "Key": "rows.parquet"})
    assert json.loads(described["output"]) == [{"n": 0}, {"n": 1}]


def test_a_folder_of_parquet_objects_is_loaded_and_flattened(flow: Flow, s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="in/a.parquet", Body=parquet([{"n": 1}, {"n": 2}]))
    s3.put_object(Bucket=bucket, Key="in/b.parquet", Body=parquet([{"n": 3}]))
    reader = {"Resource": "arn:aws:states:::s3:listObjectsV2",
              "ReaderConfig": {"InputType": "PARQUET", "Transformation": "LOAD_AND_FLATTEN"},
              "Parameters": {"Bucket.$": "$.Bucket", "Prefix": "in/"}}
    described = flow.run(distributed_map(reader), {"Bucket": bucket})
    assert json.loads(described["output"]) == [{"n": 1}, {"n": 2}, {"n": 3}]


def test_an_athena_manifest_of_parquet_objects(flow: Flow, s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="data/1.parquet", Body=parquet([{"n": 1}]))
    s3.put_object(Bucket=bucket, Key="data/2.parquet", Body=parquet([{"n": 2}, {"n": 3}]))
    s3.put_object(Bucket=bucket, Key="manifest.csv",
                  Body=f"s3://{bucket}/data/1.parquet\ns3://{bucket}/data/2.parquet\n".encode())
    reader = get_object(ManifestType="ATHENA_DATA")
    described = flow.run(distributed_map(reader), {"Bucket": bucket, "Key": "manifest.csv"})
    assert json.loads(described["output"]) == [{"n": 1}, {"n": 2}, {"n": 3}]


def test_an_object_that_is_not_parquet_fails_the_reader(flow: Flow, s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="rows.parquet", Body=b'[{"n": 1}]')
    described = flow.run(distributed_map(get_object()), {"Bucket": bucket, "Key": "rows.parquet"})
    assert (described["status"], described["error"]) == ("FAILED", "States.ItemReaderFailed")
    assert described["cause"].startswith("The object is not a valid Parquet file")


def test_without_pyarrow_the_error_names_the_extra(flow: Flow, s3: Any, bucket: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The server runs in this process: hiding pyarrow's modules is what a machine without the extra sees."""
    for name in [name for name in sys.modules if name == "pyarrow" or name.startswith("pyarrow.")]:
        monkeypatch.setitem(sys.modules, name, None)
    s3.put_object(Bucket=bucket, Key="rows.parquet", Body=b"PAR1")
    described = flow.run(distributed_map(get_object()), {"Bucket": bucket, "Key": "rows.parquet"})
    assert (described["status"], described["error"]) == ("FAILED", "States.ItemReaderFailed")
    assert described["cause"] == ('Reading PARQUET objects needs pyarrow, which sfn-emulator installs with its '
                                  '"parquet" extra: pip install "sfn-emulator[parquet]"')
