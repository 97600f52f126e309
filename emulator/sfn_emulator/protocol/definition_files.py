"""Reading state machine definitions from JSON or YAML files, or from standard input.

Shared by the Python API, the `sfn-emulator` commands and the mock configuration reader, so that a
definition or a YAML file reads the same whichever of them is given it. YAML is read as the JSON
it stands for: a timestamp-looking scalar stays a string, as it would be in JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, TextIO

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import yaml

STDIN = "-"  # the source that names standard input on a command line
YAML_SUFFIXES = (".yaml", ".yml")
# The values a YAML document may stand for once its aliases are expanded: one per byte of the largest
# definition Step Functions takes, more than any definition can spell out. A "billion laughs" (aliases
# of aliases, a kilobyte standing for 10^9 values) is refused while it is read, before it is used.
MAX_YAML_VALUES = 1_048_576


class UnreadableDefinition(ValueError):
    """A definition that cannot be read or is not JSON-shaped data; the message says which and why."""


class OverexpandedYaml(ValueError):
    """A YAML document whose aliases stand for more than JSON-shaped data may (see MAX_YAML_VALUES)."""


@cache
def json_shaped_yaml_loader() -> type[yaml.SafeLoader]:
    """PyYAML's safe loader reading YAML as the JSON it stands for: timestamps stay strings, as they
    would in a JSON file. Built (and PyYAML imported) on the first YAML read: most runs read none."""
    import yaml

    class JsonShapedYamlLoader(yaml.SafeLoader):
        yaml_implicit_resolvers = {
            first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
            for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
        }

        def compose_document(self) -> yaml.Node:
            node = super().compose_document()
            if node is not None:
                _check_expansion(node, yaml)
            return node

    return JsonShapedYamlLoader


def _check_expansion(root: yaml.Node, yaml: Any) -> None:
    """OverexpandedYaml when the document's aliases make it stand for more than MAX_YAML_VALUES values, or
    for a value that holds itself (JSON has neither). Each node is counted once, its size kept, so
    the check costs what the document's text does, not what it stands for."""
    sizes: dict[int, int] = {}
    ancestors: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_counted = stack.pop()
        key = id(node)
        children = _children(node, yaml)
        if children_counted:
            ancestors.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in children)
            if sizes[key] > MAX_YAML_VALUES:
                raise OverexpandedYaml(f"the YAML document's aliases expand it to more than {MAX_YAML_VALUES} values "
                                     "(an alias bomb); write the values out instead")
        elif key in ancestors:
            raise OverexpandedYaml("the YAML document holds itself through an alias, which JSON cannot")
        elif key not in sizes:
            ancestors.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)


def _children(node: yaml.Node, yaml: Any) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def is_yaml_file(path: str | Path) -> bool:
    return Path(path).suffix.lower() in YAML_SUFFIXES


def read_definition(source: str, stdin: TextIO | None = None) -> str:
    """The definition named on a command line, as JSON text: a JSON or YAML file, or `-` for `stdin`
    (default: standard input)."""
    if source == STDIN:
        return _as_json_text((stdin or sys.stdin).read(), source_label(source), yaml_file=False)
    return read_definition_file(source)


def read_definition_file(path: str | Path) -> str:
    """A definition file as JSON text. YAML (a *.yaml/*.yml file, or text not starting with `{`) is
    converted; JSON text is passed on untouched, so that its syntax errors are AWS's diagnostics."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise UnreadableDefinition(f"cannot read the definition {path}: {error}") from None
    return _as_json_text(text, str(path), yaml_file=is_yaml_file(path))


def source_label(source: str) -> str:
    """How messages name a command line's definition source."""
    return "standard input" if source == STDIN else source


def default_machine_name(path: str | Path) -> str:
    """The file name up to its first dot (`OrderFlow.asl.json` -> `OrderFlow`): the name a mock
    configuration's `StateMachines` would use for the definition in that file."""
    return Path(path).name.split(".", 1)[0]


def _as_json_text(text: str, shown: str, *, yaml_file: bool) -> str:
    if not yaml_file and text.lstrip().startswith("{"):
        return text
    import yaml

    try:
        value = yaml.load(text, Loader=json_shaped_yaml_loader())  # noqa: S506 - a SafeLoader subclass
    except (yaml.YAMLError, OverexpandedYaml) as error:
        raise UnreadableDefinition(f"{shown} is neither JSON nor valid YAML: {error}") from None
    try:
        return json.dumps(value)
    except (TypeError, ValueError) as error:  # e.g. a binary scalar: nothing JSON can hold
        raise UnreadableDefinition(f"{shown} holds a YAML value JSON cannot: {error}") from None
