"""Workloads whose cost should grow linearly with their size: reading long histories page by page,
and Distributed Maps over S3 CSV files of 10,000 to 100,000 rows.

Each size is its own scenario, so the table shows the cost per event or per item side by side:
flat from the smallest size to the largest means linear.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import boto3
from botocore.config import Config

from scenarios import Client, Execution, Measurement, Profile, Scenario, create_machine, inline_map, run_once, \
    unexpected, wait_for

HISTORY_PAGE = 100  # events per GetExecutionHistory page, as a console or a paginating test reads them
# An inline Map of N items writes 4N + 6 events; 24,998 is the most under the 25,000-event quota.
HISTORY_SIZES = (1_006, 10_006, 24_998)
DISTRIBUTED_ROWS = (10_000, 50_000, 100_000)
ROWS_PER_BATCH = 100
GAVE_UP = "gave-up"


# -- history paging ---------------------------------------------------------------------------------

def history_scenario(events: int, *, full_only: bool) -> Scenario:
    """Every page of a finished execution's history of `events` events, `HISTORY_PAGE` at a time."""
    items = (events - 6) // 4

    def prepare(client: Client, profile: Profile) -> str:
        machine_arn = create_machine(client, inline_map(items))
        # The floor server reads the history's length from the execution's name.
        response = client.start_execution(stateMachineArn=machine_arn, name=f"events-{events}-{uuid.uuid4().hex}",
                                          input=json.dumps(list(range(items))))
        execution = Execution(arn=response["executionArn"], started=time.perf_counter())
        if not wait_for(client, [execution], profile.map_budget):
            return GAVE_UP
        return execution.arn

    def attempt(client: Client, execution_arn: str, profile: Profile) -> Measurement:
        if execution_arn == GAVE_UP:
            return Measurement(None, gave_up_after=profile.map_budget, note=f"running the {items:,}-item Map")
        began = time.perf_counter()
        count, pages, token = 0, 0, None
        while True:
            page = client.get_execution_history(executionArn=execution_arn, maxResults=HISTORY_PAGE,
                                                **({"nextToken": token} if token else {}))
            count, pages, token = count + len(page["events"]), pages + 1, page.get("nextToken")
            if not token:
                break
        wall = time.perf_counter() - began
        if count != events:
            return Measurement(None, problem=f"{count:,} events, expected {events:,}")
        return Measurement(wall, note=f"{pages} pages, {wall / count * 1e6:.1f} us/event", per=(count, "event"))

    return Scenario(f"History of {events:,} events, paged by {HISTORY_PAGE}", "s", prepare, attempt,
                    floor=True, full_only=full_only)


# -- Distributed Map over S3 ------------------------------------------------------------------------

def distributed_map() -> dict[str, Any]:
    """Batches of CSV rows, each batch a child execution that counts its rows."""
    count_rows = {"Type": "Pass", "Parameters": {"rows.$": "States.ArrayLength($.Items)"}, "End": True}
    return {
        "StartAt": "Rows",
        "States": {
            "Rows": {
                "Type": "Map",
                "MaxConcurrency": 1000,
                "ItemReader": {
                    "Resource": "arn:aws:states:::s3:getObject",
                    "Parameters": {"Bucket.$": "$.bucket", "Key": "rows.csv"},
                    "ReaderConfig": {"InputType": "CSV", "CSVHeaderLocation": "FIRST_ROW"},
                },
                "ItemBatcher": {"MaxItemsPerBatch": ROWS_PER_BATCH},
                "ItemProcessor": {
                    "ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                    "StartAt": "Count",
                    "States": {"Count": count_rows},
                },
                "ResultSelector": {"batches.$": "States.ArrayLength($)"},
                "End": True,
            }
        },
    }


def s3_client(client: Client) -> Any:
    """S3 at the same endpoint: both servers answer other AWS services there (moto's backends)."""
    return boto3.client("s3", endpoint_url=client.meta.endpoint_url, region_name="us-east-1",
                        aws_access_key_id="test", aws_secret_access_key="test",
                        config=Config(retries={"total_max_attempts": 1}))


def distributed_map_scenario(rows: int, *, full_only: bool) -> Scenario:
    def prepare(client: Client, profile: Profile) -> str:
        bucket = f"bench-rows-{uuid.uuid4().hex[:12]}"
        s3 = s3_client(client)
        s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key="rows.csv", Body="id,name\n" + "".join(f"{i},row {i}\n" for i in range(rows)))
        return f"{create_machine(client, distributed_map())} {bucket}"

    def attempt(client: Client, prepared: str, profile: Profile) -> Measurement:
        machine_arn, bucket = prepared.split()
        execution = run_once(client, machine_arn, {"bucket": bucket}, profile.map_budget)
        if execution.ended is None:
            return Measurement(None, gave_up_after=profile.map_budget)
        if problem := unexpected(execution, "SUCCEEDED", {"batches": rows // ROWS_PER_BATCH}):
            return Measurement(None, problem=problem)
        wall = execution.ended - execution.started
        return Measurement(wall, note=f"{wall / rows * 1e6:.1f} us/row", per=(rows, "row"))

    return Scenario(f"Distributed Map over {rows:,} CSV rows in S3, batches of {ROWS_PER_BATCH}", "s",
                    prepare, attempt, full_only=full_only)


SCALE_SCENARIOS: list[Scenario] = [
    *(history_scenario(events, full_only=events != HISTORY_SIZES[0]) for events in HISTORY_SIZES),
    *(distributed_map_scenario(rows, full_only=rows != DISTRIBUTED_ROWS[0]) for rows in DISTRIBUTED_ROWS),
]
