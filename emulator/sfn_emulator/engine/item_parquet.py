"""Distributed Map's ItemReader on Parquet objects (`InputType: PARQUET`, alone or in an Athena
manifest): each row is one item, a JSON object keyed by the column names, in the file's order.

Values keep their Parquet types, as AWS passes them on (its developer guide, "ItemReader (Map)",
and reports of AWS's runs): numbers stay numbers, booleans booleans, nulls null; lists become arrays,
structs objects, maps objects; timestamps become integer epoch milliseconds. Types no AWS run on
record shows are the emulator's choice: dates and times as ISO-8601 text, decimals as numbers,
binary as base64 text, NaN and infinities as null.

pyarrow reads the files; it is the optional extra `parquet` (`pip install "sfn-emulator[parquet]"`),
imported on first use, and without it the reader fails saying so.
"""

from __future__ import annotations

import base64
import binascii
import math
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any

from sfn_emulator.asl.model import JSON
from sfn_emulator.engine.item_reader import failed

NEEDS_PYARROW = ('Reading PARQUET objects needs pyarrow, which sfn-emulator installs with its "parquet" extra: '
                 'pip install "sfn-emulator[parquet]"')


def parquet_items(encoded_body: str, limit: int) -> list[JSON]:
    """The first `limit` rows of a Parquet object, its body as S3 returned it (base64 of the bytes)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise failed(NEEDS_PYARROW) from None
    try:
        content = base64.b64decode(encoded_body, validate=True)
    except (ValueError, binascii.Error):
        raise failed("The object is not a Parquet file.") from None
    try:
        table = pq.read_table(pa.BufferReader(content))
    except (pa.ArrowException, OSError):  # pyarrow's own text varies between its versions
        raise failed("The object is not a valid Parquet file.") from None
    return [_json_value(row) for row in table.slice(0, limit).to_pylist()]


def _json_value(value: Any) -> JSON:
    """A value as pyarrow gives it, as the JSON the item holds."""
    if isinstance(value, dict):
        return {str(key): _json_value(item) for key, item in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(entry, tuple) and len(entry) == 2 for entry in value):  # a map column
            return {str(_json_value(key)): _json_value(item) for key, item in value}
        return [_json_value(item) for item in value]
    if isinstance(value, datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
        return (moment - _EPOCH) // timedelta(milliseconds=1)
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value // timedelta(milliseconds=1)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
