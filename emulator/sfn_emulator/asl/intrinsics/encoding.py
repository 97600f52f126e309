"""The encoding and hashing functions: States.Base64Encode, States.Base64Decode and States.Hash."""

from __future__ import annotations

import base64
import binascii
from typing import Mapping

from sfn_emulator.asl.intrinsics.arguments import Arguments, string_argument
from sfn_emulator.asl.intrinsics.errors import InvalidArguments
from sfn_emulator.asl.model import JSON


_MAX_ENCODING_INPUT = 10_000
_BASE64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def base64_encode(args: Arguments) -> JSON:
    text = string_argument(args[0])
    if len(text) > _MAX_ENCODING_INPUT:
        raise InvalidArguments
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def base64_decode(args: Arguments) -> JSON:
    """Lenient like a MIME decoder (as AWS is): characters outside the alphabet are skipped and
    the data ends at the first padding character."""
    text = string_argument(args[0])
    if len(text) > _MAX_ENCODING_INPUT:
        raise InvalidArguments
    data = "".join(c for c in text.partition("=")[0] if c in _BASE64_ALPHABET)
    if len(data) % 4 == 1:
        raise InvalidArguments
    try:
        decoded = base64.b64decode(data + "=" * (-len(data) % 4))
    except binascii.Error:
        raise InvalidArguments from None
    return decoded.decode("utf-8", errors="replace")


_HASH_ALGORITHMS: Mapping[str, str] = {
    "MD5": "md5",
    "SHA-1": "sha1",
    "SHA-256": "sha256",
    "SHA-384": "sha384",
    "SHA-512": "sha512",
}


def hash_text(args: Arguments) -> JSON:
    """AWS's documentation: the data "must be an object string containing 10,000 characters or less", so
    a number, boolean, null, array or object is refused like any invalid argument."""
    data, algorithm = string_argument(args[0]), args[1]
    if not isinstance(algorithm, str) or algorithm not in _HASH_ALGORITHMS:
        raise InvalidArguments
    if len(data) > _MAX_ENCODING_INPUT:
        raise InvalidArguments
    import hashlib  # (with OpenSSL: on the first hash, not with every definition's parser)

    return hashlib.new(_HASH_ALGORITHMS[algorithm], data.encode("utf-8")).hexdigest()
