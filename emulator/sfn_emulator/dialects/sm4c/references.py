"""Definitions an SM4C document gives by URI instead of inline: its `events`, `functions` and
`retries` ("string (URI) OR array of ..."), read once, when the document is validated or created.

What a local emulator can honour:
- `file://` URIs, read only under the directories the operator allows (`sfn_emulator.dialects.local_files`);
- in a definition read from its file (`sfn-emulator run|validate|graph`, `create_state_machine`/
  `run_definition` with a path), paths relative to that file and `file://` URIs: `anchor` reads them
  in as the file is read, its author's own files, since the text alone no longer knows its place;
- `http://` and `https://` URIs, fetched within a short deadline for the whole fetch.
Either is read up to the size quota of a state machine definition (1 MB), a file only when it is a
regular file (`sfn_emulator.resources.bounded_reads`).
The resource is JSON or YAML: the array itself, or an object holding it under the same key (as a
Serverless Workflow document's `functions` file does). Anything else is an `UnresolvableReference`,
which the parser reports as a diagnostic at the attribute; no message quotes what a resource holds.
"""

from __future__ import annotations

import urllib.request
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit
from urllib.request import url2pathname

from sfn_emulator.dialects import local_files
from sfn_emulator.dialects.documents import load_document
from sfn_emulator.resources.bounded_reads import http_exchange

JSON = Any
REFERENCE_KEYS = ("events", "functions", "retries")  # the attributes the document allows by URI
FETCH_DEADLINE_SECONDS = 5.0  # a slow or unreachable server fails validation quickly rather than hangs it
DOCUMENT_LIMIT_BYTES = 1_048_576  # the quota on a state machine definition's size
_REMOTE_SCHEMES = ("http", "https")


class UnresolvableReference(ValueError):
    """A reference that cannot be read as the definitions it names; the message says why."""


def is_relative(reference: str) -> bool:
    """A path with no URI scheme (a Windows drive letter is no scheme either)."""
    scheme = urlsplit(reference).scheme
    return not scheme or (len(scheme) == 1 and reference[1:3] in (":\\", ":/"))


def anchor(document: JSON, directory: Path) -> bool:
    """Read in the document's references to files, relative to `directory` (the definition file's
    own) or `file://` URIs: the definitions they hold replace them. Answers whether any changed;
    UnresolvableReference for one that cannot be read."""
    if not isinstance(document, dict):
        return False
    changed = False
    for key in REFERENCE_KEYS:
        reference = document.get(key)
        if not isinstance(reference, str) or not reference:
            continue
        if is_relative(reference):
            path = directory / reference
        elif urlsplit(reference).scheme == "file":
            path = Path(url2pathname(urlsplit(reference).path))
        else:
            continue
        try:
            text = local_files.read_regular(path)
        except local_files.UnreadableFile as error:
            raise UnresolvableReference(f"Cannot read '{reference}' (the '{key}'): {error}") from None
        document[key] = _definitions(text, reference, key)
        changed = True
    return changed


def resolved(document: dict, report: Callable[[str, str], None]) -> dict:
    """The document with the definitions it gives by URI read in; each failure is reported (message,
    JSON pointer) and leaves that attribute empty."""
    result = dict(document)
    for key in REFERENCE_KEYS:
        if isinstance(document.get(key), str):
            try:
                result[key] = resolve(document[key], key)
            except UnresolvableReference as error:
                report(str(error), f"/{key}")
                result[key] = []
    return result


def resolve(reference: str, key: str) -> list[JSON]:
    """The definitions `reference` names for the attribute `key`."""
    return _definitions(_read(reference), reference, key)


def _definitions(text: str, reference: str, key: str) -> list[JSON]:
    value = load_document(text)
    if value is None:
        raise UnresolvableReference(f"The '{key}' at '{reference}' are neither JSON nor YAML")
    if isinstance(value, dict) and key in value:
        value = value[key]
    if not isinstance(value, list):
        raise UnresolvableReference(f"The '{key}' at '{reference}' must be an array (or an object with '{key}'), "
                                    f"not {_json_type(value)}")
    return value


def _json_type(value: JSON) -> str:
    """What kind of JSON value it is, and nothing of what it holds."""
    kinds = ((bool, "a boolean"), (str, "a string"), ((int, float), "a number"), (dict, "an object"))
    return next((name for kind, name in kinds if isinstance(value, kind)), "null")


def _read(reference: str) -> str:
    if is_relative(reference):
        raise UnresolvableReference(
            f"The relative reference '{reference}' can only be resolved against the definition's file: read the "
            "definition from its file, or give a file:// or http(s):// URI")
    parts = urlsplit(reference)
    if parts.scheme == "file":
        try:
            return local_files.read_allowed(Path(url2pathname(parts.path)))
        except local_files.UnreadableFile as error:
            raise UnresolvableReference(f"Cannot read '{reference}': {error}") from None
    if parts.scheme in _REMOTE_SCHEMES:
        try:
            answer = http_exchange(urllib.request.Request(reference), limit_bytes=DOCUMENT_LIMIT_BYTES,
                                   deadline_seconds=FETCH_DEADLINE_SECONDS, follow_redirects=True)
            if not 200 <= answer.status < 300:
                raise ValueError(f"HTTP Error {answer.status}: {answer.reason}")
            return answer.body.decode("utf-8-sig")
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise UnresolvableReference(f"Cannot fetch '{reference}': {error}") from None
    raise UnresolvableReference(f"The reference '{reference}' has the scheme '{parts.scheme}': "
                                "only file://, http:// and https:// URIs (or a path relative to the definition's file) are read")
