"""Definition text as a document: JSON, or YAML for the dialects that accept it.

ASL stays JSON (as Step Functions requires); the other dialects take either. YAML is read with
the JSON-shaped loader of `definition_files` (no implicit timestamps), so a YAML document means
the same as the JSON one it spells.
"""

from __future__ import annotations

import json
from typing import Any


def load_document(text: str) -> Any:
    """The JSON value `text` spells (JSON first, then YAML); None when it is neither."""
    try:
        return read_document(text)
    except ValueError:
        return None


def read_document(text: str) -> Any:
    """The JSON value `text` spells (JSON first, then YAML); ValueError saying why when it is neither,
    OverexpandedYaml (a ValueError) when it is YAML whose aliases stand for too much (refused as it
    is read: see `definition_files.MAX_YAML_VALUES`)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        json_error = error
    import yaml

    from sfn_emulator.protocol.definition_files import OverexpandedYaml, json_shaped_yaml_loader

    try:
        return yaml.load(text, Loader=json_shaped_yaml_loader())  # noqa: S506 - a SafeLoader subclass
    except OverexpandedYaml:
        raise
    except (yaml.YAMLError, RecursionError, ValueError):
        raise ValueError(f"Invalid JSON or YAML: {json_error}") from None
