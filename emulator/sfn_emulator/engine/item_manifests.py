"""What a Distributed Map's ItemReader makes of a manifest: pure functions, no I/O.

Two manifests name the objects that hold the items (developer guide, "ItemReader (Map)"):

- an S3 Inventory report's `manifest.json` (`InputType: MANIFEST`, or `ManifestType: S3_INVENTORY`):
  its `files` are CSV inventory files in the `destinationBucket`, usually gzip-compressed, without a
  header row; `fileSchema` names their columns ("Bucket, Key, Size, LastModifiedDate"), and each row
  is one item keyed by those names, every value a string. Only CSV inventories can be read.
- an Athena UNLOAD manifest (`ManifestType: ATHENA_DATA`): one `s3://bucket/key` URI per line, each
  object then read as the ReaderConfig's InputType says.
"""

from __future__ import annotations

import base64
import binascii
import csv
import gzip
import io
import json
import zlib

from msgspec import Struct

from sfn_emulator.asl.model import JSON
from sfn_emulator.engine.item_reader import failed

_GZIP_MAGIC = b"\x1f\x8b"
_S3_ARN_PREFIX = "arn:aws:s3:::"


class Inventory(Struct, frozen=True):
    """The files of an S3 Inventory report and the names of their columns."""

    bucket: str
    keys: tuple[str, ...]
    columns: tuple[str, ...]


def inventory(text: str) -> Inventory:
    """The inventory files a `manifest.json` lists, in the bucket it names."""
    try:
        manifest = json.loads(text)
    except ValueError as error:
        raise failed(f"The manifest is not valid JSON: {error}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), list):
        raise failed("The manifest is not an S3 Inventory manifest: it has no 'files' list.")
    if str(manifest.get("fileFormat", "")).upper() != "CSV":
        raise failed(f"Only S3 Inventory reports in CSV format can be read, not {manifest.get('fileFormat')}.")
    bucket = str(manifest.get("destinationBucket") or "").removeprefix(_S3_ARN_PREFIX)
    columns = tuple(column.strip() for column in str(manifest.get("fileSchema") or "").split(",") if column.strip())
    if not bucket or not columns:
        raise failed("The S3 Inventory manifest must name its destinationBucket and fileSchema.")
    keys = tuple(str(entry.get("key")) for entry in manifest["files"] if isinstance(entry, dict) and entry.get("key"))
    return Inventory(bucket, keys, columns)


def inventory_items(text: str, columns: tuple[str, ...], limit: int) -> list[JSON]:
    """The rows of one inventory file (no header row) as items keyed by the manifest's columns."""
    items: list[JSON] = []
    for row in csv.reader(io.StringIO(text)):
        if len(items) >= limit:
            break
        if row:
            items.append({column: row[index] if index < len(row) else "" for index, column in enumerate(columns)})
    return items


def athena_objects(text: str) -> list[tuple[str, str]]:
    """(bucket, key) of each `s3://` URI an Athena manifest lists, one per line."""
    located = []
    for line in text.splitlines():
        uri = line.strip().strip('"')
        if not uri:
            continue
        if not uri.startswith("s3://") or "/" not in uri[5:]:
            raise failed(f"The Athena manifest lists '{uri}', which is not an s3://bucket/key URI.")
        bucket, key = uri[5:].split("/", 1)
        located.append((bucket, key))
    return located


def object_text(encoded_body: str) -> str:
    """An object's text from its body as S3 returned it (base64 of the bytes): gzip-compressed objects
    are decompressed first, as inventory files usually are."""
    try:
        content = base64.b64decode(encoded_body, validate=True)
    except (ValueError, binascii.Error):  # a body given as text already
        return encoded_body
    if content.startswith(_GZIP_MAGIC):
        try:
            content = gzip.decompress(content)
        except (OSError, EOFError, zlib.error) as error:
            raise failed(f"The object is not valid gzip: {error}") from None
    return content.decode("utf-8", errors="replace")
