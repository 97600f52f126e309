"""The one stack model every format reader produces and the resolver and loader consume.

A `StackTemplate` is one CloudFormation-shaped stack (SAM already translated, Terraform's resources
already in CloudFormation's types): its resources, parameters, conditions, mappings and outputs,
plus what the format knows of local files (function code, layers, definition files, assets) and of
where each value was written (file and line)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from msgspec import Struct, field


class StackError(Exception):
    """Input that cannot be read as a stack at all (a missing file, a YAML or JSON error, an
    unsupported transform): the message names the file, and the line where there is one."""


class Where(Struct, frozen=True):
    """Where a value was written: its file, line (None where the format has none) and path in the template."""

    file: str
    line: int | None
    path: str

    def __str__(self) -> str:
        line = f":{self.line}" if self.line is not None else ""
        return f"{self.file}{line} ({self.path})"


class Unresolved(Struct, frozen=True):
    """A reference, intrinsic or file the loader could not turn into a value; `subject` is the logical
    id of the resource it belongs to (or `Parameters.X`, `Outputs.Y`, `Conditions.Z`)."""

    what: str
    where: Where
    subject: str


class StackTemplate(Struct):
    """One stack, CloudFormation-shaped.

    `local_paths` maps (logical id, property) to the local file or directory a property points at
    (SAM's `CodeUri`, `DefinitionUri`, `ContentUri`; a CDK asset; an unpacked zip);
    `line_of` answers the line of a path of keys in the file, or None."""

    name: str
    source: Path
    resources: dict[str, Any] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    conditions: dict[str, Any] = field(default_factory=dict)
    mappings: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    local_paths: dict[tuple[str, str], Path] = field(default_factory=dict)
    assets: dict[str, Path] = field(default_factory=dict)  # S3 object key -> local file or directory
    nested: dict[str, StackTemplate] = field(default_factory=dict)  # logical id of a nested stack -> its template
    line_of: Callable[[tuple[str, ...]], int | None] = field(default=lambda path: None)

    def where(self, path: tuple[str, ...]) -> Where:
        return Where(str(self.source), self.line_of(path), ".".join(path))
