"""Step Functions' payload quota, enforced in one place.

AWS's quota: "the maximum input or result data size in bytes as a UTF-8 encoded string for a task,
state, or execution" is 262,144 bytes (256 KiB). Data is measured as AWS serialises it, compact JSON
text with non-ASCII characters kept, in UTF-8 bytes. Going over fails with `States.DataLimitExceeded`
and a cause naming the culprit, "The state/task '<name>' returned a result with a size exceeding the
maximum number of bytes service limit." — the culprit being the state's name for a state's output or a
Parallel/Map result, the function ARN for a Lambda function ARN Task and the service (`lambda`,
`dynamodb`, ...) for an integration Task's result, as AWS's recorded runs and reports show.

What Parameters (JSONata: Arguments) make is the state's request, and AWS words its overflow as such:
"The state/task '<state name>' provided parameters with a size exceeding the maximum number of bytes
service limit." (an AWS production failure of a Task whose Parameters passed `$$` and `$` to a
function, quoted in mbc-net/mbc-cqrs-serverless#471); AWS's error list names the case "after
Parameters processing, the input of a state is larger than the payload size quota".
"""

from __future__ import annotations

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.model import JSON

PAYLOAD_LIMIT_BYTES = 262_144
RETURNED_RESULT = "returned a result"  # a state's output, a Task's result, a selection of results
PROVIDED_PARAMETERS = "provided parameters"  # what Parameters / Arguments make


def within_payload_limit(value: JSON, culprit: str, text: str | None = None, *,
                         overflow: str = RETURNED_RESULT) -> str:
    """`value` as JSON text, or `States.DataLimitExceeded` naming `culprit` when it is over the quota.
    `text`: the value's JSON text, when the caller has it already; `overflow`: what the culprit did
    with the value, as the cause words it."""
    if text is None:
        text = compact_json(value)
    # a text of n characters holds at least n and at most 4n bytes: encode only when it may matter
    if len(text) * 4 > PAYLOAD_LIMIT_BYTES and (
        len(text) > PAYLOAD_LIMIT_BYTES or len(text.encode("utf-8")) > PAYLOAD_LIMIT_BYTES
    ):
        raise data_limit_exceeded(culprit, overflow)
    return text


def data_limit_exceeded(culprit: str, overflow: str = RETURNED_RESULT) -> StatesError:
    """AWS's `States.DataLimitExceeded` for data of `culprit` over the quota."""
    return StatesError(
        names.DATA_LIMIT_EXCEEDED,
        f"The state/task '{culprit}' {overflow} with a size exceeding the maximum number of bytes service limit.",
    )
