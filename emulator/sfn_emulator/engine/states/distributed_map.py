"""The Distributed Map state: a map run whose items (from the input or an ItemReader on S3, batched by
an ItemBatcher) run as child executions, with the tolerated failures and the ResultWriter export."""

from __future__ import annotations

from typing import Any

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.limits import within_payload_limit
from sfn_emulator.asl.model import JSON, ItemReader, MapState, ReaderConfig, ResultWriter
from sfn_emulator.asl.task_targets import parse_resource
from sfn_emulator.engine.effects import Interpreter, Invoke, RunMapRun
from sfn_emulator.engine.execution import MapRun
from sfn_emulator.engine.frame import Frame
from sfn_emulator.engine.item_batches import item_batches
from sfn_emulator.engine.item_reader import (
    item_limit,
    items_from_object,
    items_from_source_text,
    listed_items,
    s3_call,
)
from sfn_emulator.engine.result_writer import (
    destination,
    map_output,
    previewed_results,
    result_files,
)
from sfn_emulator.engine.states.processing import (
    BranchFailure,
    item_selected,
)
from sfn_emulator.protocol.history_events import (
    map_run_failed,
    map_run_started,
    map_run_succeeded,
    map_state_started,
    map_state_succeeded,
)
from sfn_emulator.protocol.partitions import partition_for
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.outcomes import settled_result

_GET_OBJECT = "arn:aws:states:::s3:getObject"

def run_distributed_map(state: MapState, raw: JSON, frame: Frame) -> Interpreter:
    """A Distributed Map: a map run whose items run as child executions (histories of their own)."""
    value = state.io.state_input(raw, frame)
    # An ItemReader's items are read once the map run has started (MapStateStarted says length 0 then,
    # as AWS's histories do), and ItemsPath does not apply to them.
    items: JSON = []
    if state.item_reader is None:
        items = state.io.items(value, frame)
    max_concurrency = state.max_concurrency.evaluate(value, frame)
    frame.emit(map_state_started(len(items)))
    tolerated_count = _tolerated_failure_count(state, value, frame)
    tolerated_percentage = _tolerated_failure_percentage(state, value, frame)
    run = frame.run
    execution = run.execution
    label = state.label or state.name
    run_id = run.randomness.uuid()
    map_run = MapRun(
        arn=f"arn:{partition_for(execution.region)}:states:{execution.region}:{execution.account}:mapRun:{execution.state_machine_name}/{label}:{run_id}",
        execution_arn=execution.arn,
        state_machine_arn=f"{execution.state_machine_arn}/{label}",
        start_date=run.now(),
        max_concurrency=max_concurrency,
        tolerated_failure_percentage=tolerated_percentage or 0.0,
        tolerated_failure_count=tolerated_count or 0,
    )
    frame.emit(map_run_started(map_run.arn))
    try:
        if state.item_reader is not None:
            items = yield from _read_items(state.item_reader, value, frame)
            if state.item_reader.reader_config.items_pointer is not None:
                frame.inspect("afterItemsPointer", items)
        selected = [_selected_item(state, value, index, item, frame) for index, item in enumerate(items)]
        if state.item_selector is not None:
            frame.inspect("afterItemSelector", selected)
        inputs = _batched(state, value, selected, frame)
        if state.item_batcher is not None:
            frame.inspect("afterItemBatcher", inputs)
        map_run.total_items = len(inputs)
        if state.item_batcher is not None:
            map_run.batch_sizes = [len(batch["Items"]) for batch in inputs if isinstance(batch, dict)]
        try:
            results = yield RunMapRun(map_run, state.item_processor, inputs, state.execution_type or "STANDARD",
                                      tolerated_count, tolerated_percentage)
        except StatesError:
            if state.result_writer is not None and state.result_writer.resource:  # what ran is written all the same
                yield from _write_results(state.result_writer, value, map_run, frame)
            raise
        if state.result_writer is not None and state.result_writer.resource:
            results = yield from _write_results(state.result_writer, value, map_run, frame)
        elif state.result_writer is not None:  # a WriterConfig alone: the results, transformed, exported nowhere
            results = previewed_results(state.result_writer.transformation, map_run.executions, results)
    except StatesError as error:
        frame.emit(map_run_failed(error.error, error.cause))
        raise BranchFailure(error.error, error.cause) from None
    frame.emit(map_run_succeeded())
    # MapStateExited links to MapRunSucceeded in 30 of AWS's 40 recordings (to MapRunStarted in the rest)
    frame.emit(map_state_succeeded(), advance=False)
    within_payload_limit(results, state.name)
    return state.io.result_output(raw, results, state.assign, frame), state.next


def _read_items(reader: ItemReader, value: JSON, frame: Frame) -> Interpreter:
    """The items an ItemReader reads from S3 (or those a TestState caller supplied instead)."""
    config = reader.reader_config
    limit = item_limit(config.max_items.evaluate(value, frame) if config.max_items is not None else None)
    if frame.run.item_reader_data is not None:
        return items_from_source_text(frame.run.item_reader_data, config, limit)
    parameters = reader.parameters.evaluate(value, frame) if reader.parameters is not None else {}
    if config.input_type == "MANIFEST" or config.manifest_type is not None:
        return (yield from _manifest_items(reader.resource, parameters, config, limit, frame))
    parquet = config.input_type == "PARQUET"
    if not reader.resource.endswith(":listObjectsV2"):
        answer = yield from _call_s3(reader.resource, parameters, frame, names.ITEM_READER_FAILED, binary=parquet)
        return _object_items(_body(answer), config, limit, binary=parquet)
    listing = yield from _listed_objects(reader.resource, parameters, limit, frame)
    if config.transformation != "LOAD_AND_FLATTEN":
        return listing
    items: list[JSON] = []
    for listed in listing:
        if len(items) >= limit:
            break
        if str(listed["Key"]).endswith("/"):  # a folder has no data
            continue
        location = {"Bucket": parameters.get("Bucket") if isinstance(parameters, dict) else None, "Key": listed["Key"]}
        answer = yield from _call_s3(_GET_OBJECT, location, frame, names.ITEM_READER_FAILED, binary=parquet)
        items.extend(_object_items(_body(answer), config, limit - len(items), binary=parquet))
    return items


def _object_items(body: str, config: ReaderConfig, limit: int, *, binary: bool) -> list[JSON]:
    """The items of one object's body: Parquet from its bytes (base64, as `binary` calls answer),
    gzip-compressed or plain text per the InputType otherwise."""
    if config.input_type == "PARQUET":
        # Imported on first use: pyarrow is an optional extra, read by few machines.
        from sfn_emulator.engine.item_parquet import parquet_items

        return parquet_items(body, limit)
    if binary:
        from sfn_emulator.engine.item_manifests import object_text

        body = object_text(body)
    return items_from_object(body, config, limit)


def _manifest_items(resource: str, parameters: JSON, config: ReaderConfig, limit: int, frame: Frame) -> Interpreter:
    """The items of the objects a manifest names: an S3 Inventory report's rows, or (ATHENA_DATA) the
    items of each object an Athena manifest lists, read per the InputType."""
    # Imported on first use: manifests (gzip, Inventory, Athena) are read by few machines.
    from sfn_emulator.engine.item_manifests import athena_objects, inventory, inventory_items, object_text

    answer = yield from _call_s3(resource, parameters, frame, names.ITEM_READER_FAILED, binary=True)
    manifest = object_text(_body(answer))
    items: list[JSON] = []
    if config.manifest_type == "ATHENA_DATA":
        for bucket, key in athena_objects(manifest):
            if len(items) >= limit:
                break
            answer = yield from _call_s3(_GET_OBJECT, {"Bucket": bucket, "Key": key}, frame,
                                         names.ITEM_READER_FAILED, binary=True)
            items.extend(_object_items(_body(answer), config, limit - len(items), binary=True))
        return items
    listed = inventory(manifest)
    for key in listed.keys:
        if len(items) >= limit:
            break
        answer = yield from _call_s3(_GET_OBJECT, {"Bucket": listed.bucket, "Key": key}, frame,
                                     names.ITEM_READER_FAILED, binary=True)
        items.extend(inventory_items(object_text(_body(answer)), listed.columns, limit - len(items)))
    return items


def _listed_objects(resource: str, parameters: JSON, limit: int, frame: Frame) -> Interpreter:
    """Every object ListObjectsV2 names (page after page), up to `limit`, as Map items."""
    contents: list[Any] = []
    request = parameters
    while True:
        page = yield from _call_s3(resource, request, frame, names.ITEM_READER_FAILED)
        page = page if isinstance(page, dict) else {}
        contents.extend(page.get("Contents") or [])
        if len(contents) >= limit or not page.get("IsTruncated") or not isinstance(parameters, dict):
            return listed_items(contents[:limit])
        request = {**parameters, "ContinuationToken": page.get("NextContinuationToken")}


def _write_results(writer: ResultWriter, value: JSON, map_run: MapRun, frame: Frame) -> Interpreter:
    """Write the child executions' results and the manifest to S3; returns the Map's result."""
    parameters = writer.parameters.evaluate(value, frame) if writer.parameters is not None else {}
    bucket, folder = destination(parameters, map_run.arn)
    files, manifest = result_files(bucket, folder, map_run.arn, map_run.executions,
                                   transformation=writer.transformation, output_type=writer.output_type)
    for written in (*files, manifest):
        yield from _call_s3(writer.resource, {"Bucket": bucket, "Key": written.key, "Body": written.content},
                            frame, names.RESULT_WRITER_FAILED)
    map_run.results_written = len(map_run.executions)
    return map_output(map_run.arn, bucket, manifest.key)


def _call_s3(resource: str, payload: JSON, frame: Frame, failure: str, *, binary: bool = False) -> Interpreter:
    """Make an ItemReader's or ResultWriter's S3 call through the task resources (no mock answers it:
    it is no Task). Its failure is the reader's or writer's, with S3's cause. With `binary`, an
    object's body comes as base64 of its bytes (it may be compressed)."""
    run = frame.run
    execution = run.execution
    request = TaskRequest(
        resource=parse_resource(s3_call(resource)), payload=payload, execution_arn=execution.arn,
        state_machine_name=execution.state_machine_name, state_name=frame.state_name,
        account=execution.account, region=execution.region, now=run.now(), seed=run.request_seed(),
        binary_body=binary,
    )
    try:
        return settled_result((yield Invoke(request)))
    except StatesError as error:
        raise StatesError(failure, error.cause) from None


def _body(answer: JSON) -> str:
    body = answer.get("Body") if isinstance(answer, dict) else None
    return body if isinstance(body, str) else ""


def _selected_item(state: MapState, value: JSON, index: int, item: JSON, frame: Frame) -> JSON:
    if state.item_selector is None:
        return item
    scope = frame.child(map_item=(index, item))
    scope.state_name, scope.entered_time = frame.state_name, frame.entered_time
    return item_selected(state, value, scope)


def _batched(state: MapState, value: JSON, items: list[JSON], frame: Frame) -> list[JSON]:
    """ItemBatcher: child inputs of {"Items": [...], "BatchInput": ...} within its item and byte bounds."""
    batcher = state.item_batcher
    if batcher is None:
        return items
    max_items = _batch_bound(batcher.max_items_per_batch, value, frame)
    max_bytes = _batch_bound(batcher.max_input_bytes_per_batch, value, frame)
    batch_input = batcher.batch_input.evaluate(value, frame) if batcher.batch_input is not None else None
    return item_batches(items, max_items=max_items, max_bytes=max_bytes, batch_input=batch_input,
                        culprit=state.name)


def _batch_bound(field: Any, value: JSON, frame: Frame) -> int | None:
    """One of ItemBatcher's bounds; None when there is none or it is not a positive integer."""
    bound = field.evaluate(value, frame) if field is not None else None
    return bound if isinstance(bound, int) and not isinstance(bound, bool) and bound > 0 else None


def _tolerated_failure_count(state: MapState, value: JSON, frame: Frame) -> int | None:
    field = state.tolerated_failure_count
    count = field.evaluate(value, frame) if field is not None else None
    if count is not None and count < 0:
        raise StatesError(names.RUNTIME, "ToleratedFailureCount cannot be negative.")
    return count


def _tolerated_failure_percentage(state: MapState, value: JSON, frame: Frame) -> float | None:
    field = state.tolerated_failure_percentage
    percentage = field.evaluate(value, frame) if field is not None else None
    if percentage is not None and not 0 <= percentage <= 100:
        raise StatesError(names.RUNTIME, "ToleratedFailurePercentage must be between 0 and 100.")
    return percentage
