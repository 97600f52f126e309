"""How a Distributed Map's ItemBatcher groups the selected items into child-execution inputs.

AWS's rule (developer guide, "ItemBatcher (Map)"): a batch holds at most MaxItemsPerBatch items and
at most MaxInputBytesPerBatch bytes; when both are given, Step Functions puts fewer items in a batch
to stay under the byte size; without either, batches are bounded only by the 256 KiB payload quota.
Each batch is the child's input, `{"Items": [...], "BatchInput": ...}`, measured as AWS measures any
payload (compact JSON text in UTF-8 bytes). Items are taken in order and a batch is closed when the
next item would break a bound, so an item is never split or reordered; an item that is too big even
alone is given a batch of its own, and that batch then answers to the payload quota (failing the
Map with `States.DataLimitExceeded` when it is over 256 KiB).
"""

from __future__ import annotations

from sfn_emulator.asl.limits import PAYLOAD_LIMIT_BYTES, within_payload_limit
from sfn_emulator.asl.model import JSON
from sfn_emulator.engine.frame import to_json_text

# `{"Items":[` + `]` + `}`, and `,"BatchInput":` before a batch input's text
_ENVELOPE_BYTES = len('{"Items":[]}')
_BATCH_INPUT_KEY_BYTES = len(',"BatchInput":')


def item_batches(items: list[JSON], *, max_items: int | None, max_bytes: int | None, batch_input: JSON | None,
                 culprit: str) -> list[dict[str, JSON]]:
    """The child inputs for `items`; `culprit` (the Map state's name) is named when a batch is over quota."""
    byte_bound = min(max_bytes, PAYLOAD_LIMIT_BYTES) if max_bytes is not None else PAYLOAD_LIMIT_BYTES
    fixed = _ENVELOPE_BYTES
    if batch_input is not None:
        fixed += _BATCH_INPUT_KEY_BYTES + _utf8_length(to_json_text(batch_input))
    groups: list[list[JSON]] = []
    current: list[JSON] = []
    size = fixed
    for item in items:
        item_bytes = _utf8_length(to_json_text(item)) + (1 if current else 0)  # the comma before it
        full = max_items is not None and len(current) >= max_items
        if current and (full or size + item_bytes > byte_bound):
            groups.append(current)
            current, size = [], fixed
            item_bytes -= 1
        current.append(item)
        size += item_bytes
    if current:
        groups.append(current)
    batches = []
    for group in groups:
        batch: dict[str, JSON] = {"Items": group}
        if batch_input is not None:
            batch["BatchInput"] = batch_input
        if len(group) == 1:  # only a lone item can be over the bound: it answers to the quota
            within_payload_limit(batch, culprit)
        batches.append(batch)
    return batches


def _utf8_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))
