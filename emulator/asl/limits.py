"""Step Functions' payload quota, enforced in one place.

AWS's quota: "the maximum input or result data size in bytes as a UTF-8 encoded string for a task,
state, or execution" is 262,144 bytes (256 KiB). Data is measured as AWS serialises it, compact JSON
text with non-ASCII characters kept, in UTF-8 bytes. Going over fails with `States.DataLimitExceeded`
and a cause naming the culprit, "The state/task '<name>' returned a result with a size exceeding the
maximum number of bytes service limit." — the culprit being the state's name for a state's output or a
Parallel/Map result, the function ARN for a Lambda function ARN Task and the service (`lambda`,
`dynamodb`, ...) for an integration Task's result, as AWS's recorded runs and reports show.
"""

from __future__ import annotations

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.model import JSON

PAYLOAD_LIMIT_BYTES = 262_144


def within_payload_limit(value: JSON, culprit: str, text: str | None = None) -> str:
    """`value` as JSON text, or `States.DataLimitExceeded` naming `culprit` when it is over the quota.
    `text`: the value's JSON text, when the caller has it already."""
    if text is None:
        text = compact_json(value)
    # a text of n characters holds at least n and at most 4n bytes: encode only when it may matter
    if len(text) * 4 > PAYLOAD_LIMIT_BYTES and (
        len(text) > PAYLOAD_LIMIT_BYTES or len(text.encode("utf-8")) > PAYLOAD_LIMIT_BYTES
    ):
        raise StatesError(
            names.DATA_LIMIT_EXCEEDED,
            f"The state/task '{culprit}' returned a result with a size exceeding the maximum number of bytes "
            "service limit.",
        )
    return text
