"""What TestState shows of an HTTP Task at the TRACE inspection level: the request as it went out
and the response as it came back (the API reference's InspectionDataRequest/InspectionDataResponse,
every member a string).

The HTTP Task's outcome carries its `HttpExchange` (`Succeeded.http`, `Failed.http`, `Pending.http`). What the
EventBridge connection added to the request (its authorization header, its query and body
parameters) is a secret: it is shown only when the caller asks with `revealSecrets` (API reference,
TestState: "Step Functions doesn't omit any information included in the state definition or the HTTP
response"). Header lists are given as the JSON text of an object, name to value.
"""

from __future__ import annotations

import urllib.parse
from typing import TYPE_CHECKING

from msgspec import Struct

from sfn_emulator.asl.json_text import compact_json

if TYPE_CHECKING:
    import urllib.request

class HttpExchange(Struct):
    """One HTTP Task call: the request sent, the same request without the connection's secrets, and
    the answer (none when no answer came)."""

    sent: urllib.request.Request
    without_secrets: urllib.request.Request
    status: int | None = None
    reason: str = ""
    headers: dict[str, str] | None = None
    body: str = ""

    def answered(self, status: int, reason: str, headers: list[tuple[str, str]], body: str) -> None:
        self.status, self.reason, self.body = status, reason, body
        self.headers = dict(headers)

    def inspection(self, reveal_secrets: bool) -> dict[str, dict[str, str]]:
        """`request` and (when an answer came) `response`, as TestState's inspection data shows them."""
        shown = self.sent if reveal_secrets else self.without_secrets
        protocol = urllib.parse.urlsplit(shown.full_url).scheme
        data = shown.data if isinstance(shown.data, bytes) else b""
        trace = {"request": {"protocol": protocol, "method": shown.get_method(), "url": shown.full_url,
                             "headers": compact_json(dict(shown.header_items())),
                             "body": data.decode("utf-8", errors="replace")}}
        if self.status is not None:
            trace["response"] = {"protocol": protocol, "statusCode": str(self.status), "statusMessage": self.reason,
                                 "headers": compact_json(self.headers or {}), "body": self.body}
        return trace

