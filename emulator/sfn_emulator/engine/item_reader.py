"""What a Distributed Map's ItemReader makes of S3's answers: pure functions, no I/O.

The interpreter asks the task resources for the S3 call (`s3_call`) and hands the answer here:
an object's text becomes items per the ReaderConfig (`items_from_object`), a ListObjectsV2 page
becomes one item per object (`listed_items`), and `item_limit` turns MaxItems/MaxItemsPath into
how many items to keep. Failures are `States.ItemReaderFailed` with AWS's causes where recorded.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from typing import Any

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.model import JSON, ReaderConfig

MAX_ITEMS = 100_000_000  # AWS stops reading past this many items; MaxItems 0 means this many
MAX_CSV_HEADER_BYTES = 10_240  # "Step Functions supports CSV headers of up to 10 KB" (developer guide, ItemReader)
DELIMITERS = {"COMMA": ",", "PIPE": "|", "SEMICOLON": ";", "SPACE": " ", "TAB": "\t"}
_STATES_PREFIX = "arn:aws:states:::"
_SDK_PREFIX = "arn:aws:states:::aws-sdk:"


def s3_call(resource: str) -> str:
    """The SDK integration that makes an ItemReader's or ResultWriter's call: Step Functions calls
    S3's own API (`arn:aws:states:::s3:getObject` is S3's GetObject, as `aws-sdk:s3:getObject` is)."""
    return _SDK_PREFIX + resource.removeprefix(_STATES_PREFIX)


def failed(cause: str) -> StatesError:
    return StatesError(names.ITEM_READER_FAILED, cause)


def item_limit(max_items: int | None) -> int:
    """How many items to read: MaxItems (or what MaxItemsPath selects, already an integer), where 0
    or nothing means all of them and more than AWS's limit means the limit."""
    if max_items is None:
        return MAX_ITEMS
    if max_items < 0:
        raise failed("field MaxItems must be positive")
    return min(max_items, MAX_ITEMS) or MAX_ITEMS


def items_from_object(text: str, config: ReaderConfig, limit: int) -> list[JSON]:
    """The items in an object's text, read as `config.input_type` says; at most `limit` of them."""
    if config.input_type == "PARQUET":  # binary: read from the object's bytes (`item_parquet`), never from text
        raise failed("PARQUET items are read from S3 objects; they cannot be given as text")
    if config.input_type == "JSON":
        return _json_items(text, config.items_pointer)[:limit]
    if config.input_type == "JSONL":
        return _json_lines(text, limit)
    if config.input_type == "CSV":
        return _csv_items(text, config, limit)
    raise failed("An ItemReader that reads an object needs a ReaderConfig with an InputType")


def items_from_source_text(text: str, config: ReaderConfig, limit: int) -> list[JSON]:
    """The items in a source given as text (TestState's `mapItemReaderData`): an object read as
    `config` says, or, for a listing of objects (no InputType), the listed items as a JSON array."""
    if config.input_type is None and config.manifest_type is None:
        return _json_items(text, None)[:limit]
    return items_from_object(text, config, limit)


def listed_items(contents: list[dict[str, Any]]) -> list[dict[str, JSON]]:
    """One item per object of a ListObjectsV2 answer (`Contents`, as the SDK integration returns it),
    in the shape AWS passes to the child executions: LastModified in epoch seconds."""
    return [
        {
            "Etag": entry.get("ETag"),
            "Key": entry.get("Key"),
            "LastModified": _epoch_seconds(entry.get("LastModified")),
            "Size": entry.get("Size"),
            "StorageClass": entry.get("StorageClass"),
        }
        for entry in contents
    ]


def _epoch_seconds(instant: JSON) -> JSON:
    if not isinstance(instant, str):
        return instant
    return int(datetime.fromisoformat(instant.replace("Z", "+00:00")).timestamp())


def _json_items(text: str, pointer: str | None) -> list[JSON]:
    try:
        document = json.loads(text)
    except ValueError as error:
        raise failed(f"The object is not valid JSON: {error}") from None
    if pointer is not None:
        document = _pointed(document, pointer)
    if not isinstance(document, list):
        raise failed("Attempting to map over non-iterable node.")
    return document


def _pointed(document: JSON, pointer: str) -> JSON:
    """The node a JSON Pointer (RFC 6901) names, as `ItemsPointer` selects the array in an object."""
    node = document
    for token in pointer.split("/")[1:] if pointer else []:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise failed(f"The ItemsPointer '{pointer}' does not point to a node of the object.")
    return node


def _json_lines(text: str, limit: int) -> list[JSON]:
    items: list[JSON] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if len(items) >= limit:
            break
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except ValueError as error:
            raise failed(f"Line {number} of the object is not valid JSON: {error}") from None
    return items


def _csv_items(text: str, config: ReaderConfig, limit: int) -> list[JSON]:
    """Rows as objects keyed by the headers (every value a string): a short row gets empty strings
    for the missing fields, a long row loses the extra ones; blank lines are no rows."""
    # AWS's rules: quotes may enclose delimiters and newlines, "" keeps a quote, a backslash escapes.
    rows = (row for row in csv.reader(io.StringIO(text), delimiter=DELIMITERS[config.csv_delimiter],
                                      escapechar="\\", doublequote=True, strict=False) if row)
    if config.csv_header_location == "GIVEN":
        headers = list(config.csv_headers)
    else:
        headers = next(rows, [])
        if len(DELIMITERS[config.csv_delimiter].join(headers).encode("utf-8")) > MAX_CSV_HEADER_BYTES:
            raise failed(f"CSV headers cannot exceed {MAX_CSV_HEADER_BYTES} bytes.")
    if len(set(headers)) < len(headers):
        raise failed("CSV headers cannot contain duplicates.")
    items: list[JSON] = []
    for row in rows:
        if len(items) >= limit:
            break
        items.append({header: row[index] if index < len(row) else "" for index, header in enumerate(headers)})
    return items
