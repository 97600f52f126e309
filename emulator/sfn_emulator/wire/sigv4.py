"""What a request's SigV4 credential scope says: who signed it, for which region and which service.

Every AWS SDK signs with `Credential=AKID/DATE/REGION/SERVICE/aws4_request`, in the `Authorization`
header or, for presigned URLs, the `X-Amz-Credential` query parameter. Signatures are not
checked; the scope alone names the caller's account (an access key id of exactly twelve digits,
as in moto), region, and the service the request is meant for.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs

from msgspec import Struct

# Credential=AKID/20240101/us-east-1/sqs/aws4_request
_HEADER_SCOPE = re.compile(r"Credential=([^/,\s]*)/[^/,\s]*/([^/,\s]+)/([^/,\s]+)/")
_PRESIGNED_SCOPE = re.compile(r"^([^/]*)/[^/]*/([^/]+)/([^/]+)/")
_ACCOUNT_ID = re.compile(r"\d{12}")


class CredentialScope(Struct, frozen=True):
    access_key: str
    region: str
    service: str  # the signing name, e.g. "states", "sqs", "s3"

    def account(self, default_account: str) -> str:
        """The caller's account: the access key id if it is twelve digits, else `default_account`."""
        return self.access_key if _ACCOUNT_ID.fullmatch(self.access_key) else default_account


def credential_scope(environ: dict[str, Any]) -> CredentialScope | None:
    """The scope of a SigV4-signed request or presigned URL; None if it carries none."""
    match = _HEADER_SCOPE.search(environ.get("HTTP_AUTHORIZATION") or "")
    if match is None:
        credential = parse_qs(environ.get("QUERY_STRING") or "").get("X-Amz-Credential")
        match = _PRESIGNED_SCOPE.match(credential[0]) if credential else None
    return CredentialScope(*match.groups()) if match is not None else None
