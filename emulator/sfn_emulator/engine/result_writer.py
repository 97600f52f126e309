"""What a Distributed Map's ResultWriter writes to S3, and what the Map then outputs: pure functions.

AWS writes, under `<Prefix>/<map run id>/`, one file per outcome with the child executions of that
outcome (`SUCCEEDED_0.json`; `FAILED_0.json` for failed, timed-out and aborted ones) and a
`manifest.json` naming them; the Map's result is then the map run ARN and where the manifest is.
The WriterConfig shapes what is written (developer guide, "ResultWriter (Map)"): Transformation
NONE (the default when exporting) writes each execution with its metadata, COMPACT only the
succeeded executions' outputs, FLATTEN those outputs with arrays flattened one level; a failed
execution is always written as NONE writes it. OutputType JSON writes a file as one JSON array,
JSONL as JSON Lines (one value per line, in a `.jsonl` file).
The interpreter writes each `ResultFile` through the task resources (S3's PutObject).
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from msgspec import Struct

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.model import JSON
from sfn_emulator.clock.virtual_clock import format_time
from sfn_emulator.engine.execution import SUCCEEDED, Execution
from sfn_emulator.engine.frame import to_json_text

FAILED_OUTCOMES = "FAILED"


class ResultFile(Struct, frozen=True):
    """One object to write: `body` is JSON, stored as its compact JSON text, or with `lines` each
    element of the `body` array on a line of its own (JSON Lines)."""

    key: str
    body: JSON
    lines: bool = False

    @property
    def content(self) -> bytes:
        if self.lines and isinstance(self.body, list):
            return "".join(to_json_text(record) + "\n" for record in self.body).encode("utf-8")
        return to_json_text(self.body).encode("utf-8")

    @property
    def size(self) -> int:
        return len(self.content)


def destination(parameters: JSON, map_run_arn: str) -> tuple[str, str]:
    """(bucket, folder) of a map run's results: `<Prefix>/<map run id>/` in the Bucket the ResultWriter's
    parameters name."""
    parameters = parameters if isinstance(parameters, dict) else {}
    bucket = parameters.get("Bucket")
    if not isinstance(bucket, str) or not bucket:
        raise StatesError(names.RESULT_WRITER_FAILED, "The ResultWriter's parameters must name a Bucket.")
    prefix = parameters.get("Prefix") or ""
    if not isinstance(prefix, str):
        raise StatesError(names.RESULT_WRITER_FAILED, "The ResultWriter's Prefix must be a string.")
    if prefix and not prefix.endswith("/"):
        prefix += "/"
    return bucket, f"{prefix}{map_run_arn.rsplit(':', 1)[-1]}/"


def result_files(bucket: str, folder: str, map_run_arn: str, executions: Sequence[Execution], *,
                 transformation: str | None = None, output_type: str | None = None,
                 ) -> tuple[list[ResultFile], ResultFile]:
    """The outcome files (only those with executions) and the manifest that lists them."""
    succeeded = [execution for execution in executions if execution.status == SUCCEEDED]
    failed = [execution for execution in executions if execution.status != SUCCEEDED]
    lines = output_type == "JSONL"
    extension = "jsonl" if lines else "json"
    records = ((SUCCEEDED, succeeded, _exported(transformation or "NONE", succeeded)),
               (FAILED_OUTCOMES, failed, [_entry(execution) for execution in failed]))
    files = [ResultFile(f"{folder}{outcome}_0.{extension}", written, lines)
             for outcome, outcome_executions, written in records if outcome_executions]
    listed: dict[str, list[dict[str, Any]]] = {"FAILED": [], "PENDING": [], "SUCCEEDED": []}
    for written in files:
        outcome = written.key.rsplit("/", 1)[-1].split("_", 1)[0]
        listed[outcome].append({"Key": written.key, "Size": written.size})
    manifest = ResultFile(f"{folder}manifest.json",
                          {"DestinationBucket": bucket, "MapRunArn": map_run_arn, "ResultFiles": listed})
    return files, manifest


def _exported(transformation: str, succeeded: Sequence[Execution]) -> list[JSON]:
    """What a ResultWriter writes for the succeeded executions under `transformation`."""
    if transformation == "NONE":
        return [_entry(execution) for execution in succeeded]
    outputs = [json.loads(execution.output or "null") for execution in succeeded]
    return previewed_results(transformation, succeeded, outputs)


def previewed_results(transformation: str | None, executions: Sequence[Execution], results: list[JSON]) -> list[JSON]:
    """The Map's result under a WriterConfig without a Resource: the executions' outputs (COMPACT, the
    default), those outputs with arrays flattened one level (FLATTEN), or each execution as the result
    files show it (NONE). Under FLATTEN a failed execution (within the tolerated failures) is given
    unchanged, as NONE gives it (developer guide, "ResultWriter (Map)")."""
    if transformation == "NONE":
        return [_entry(execution) for execution in executions]
    if transformation == "FLATTEN":
        flattened: list[JSON] = []
        for execution, result in zip(executions, results):
            if execution.status != SUCCEEDED:
                flattened.append(_entry(execution))
            else:
                flattened.extend(result if isinstance(result, list) else [result])
        return flattened
    return results


def map_output(map_run_arn: str, bucket: str, manifest_key: str) -> dict[str, JSON]:
    """The Map state's result when a ResultWriter wrote the results."""
    return {"MapRunArn": map_run_arn, "ResultWriterDetails": {"Bucket": bucket, "Key": manifest_key}}


def _entry(execution: Execution) -> dict[str, JSON]:
    """A child execution as the result files show it: DescribeExecution's fields, in PascalCase."""
    entry: dict[str, JSON] = {
        "ExecutionArn": execution.arn,
        "Input": execution.input,
        "InputDetails": {"Included": True},
        "Name": execution.name,
    }
    if execution.status == SUCCEEDED:
        entry["Output"] = execution.output
        entry["OutputDetails"] = {"Included": True}
    else:
        entry.update({key: value for key, value in (("Error", execution.error), ("Cause", execution.cause))
                      if value is not None})
    entry["RedriveCount"] = execution.redrive_count
    if execution.status == SUCCEEDED:
        entry["RedriveStatus"] = "NOT_REDRIVABLE"
        entry["RedriveStatusReason"] = "Execution is SUCCEEDED and cannot be redriven"
    else:
        entry["RedriveStatus"] = "REDRIVABLE_BY_MAP_RUN"
    entry["StartDate"] = format_time(execution.start_date)
    entry["StateMachineArn"] = execution.state_machine_arn
    entry["Status"] = execution.status
    if execution.stop_date is not None:
        entry["StopDate"] = format_time(execution.stop_date)
    return entry
