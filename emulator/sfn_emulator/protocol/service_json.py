"""An AWS API's botocore model (`service-2.json`) read as plain JSON, for the request decoders.

The wire compiles its request decoders from botocore's data files. Reading them through
`botocore.model` would import botocore's auth, compat and urllib3 modules with the first request a
server answers: most of the time `serve` takes to start. The decoders need only the shapes, so this
module reads the same file with `json` and offers the part of botocore's `ServiceModel` and `Shape`
they use: `metadata`, `signing_name`, `operation_names`, `operation_model(name).input_shape`, and per
shape `name`, `type_name`, `metadata`, `members`, `member`, `enum`. A member's own traits are laid
over the shape it names, as botocore resolves a shape reference.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
from functools import cached_property
from pathlib import Path
from typing import Any

from msgspec import Struct

# The traits botocore counts as a shape's metadata (`botocore.model.Shape.METADATA_ATTRS`).
_METADATA_TRAITS = ("required", "min", "max", "pattern", "sensitive", "enum", "idempotencyToken", "error",
                    "exception", "endpointdiscoveryid", "retryable", "document", "union", "contextParam",
                    "clientContextParams", "requiresLength")


class UnknownService(LookupError):
    """botocore has no model of the API named."""


class ShapeJson:
    """One shape of the model, resolved from a reference (`{"shape": NAME, ...member traits}`)."""

    def __init__(self, model: ServiceJson, reference: dict[str, Any]) -> None:
        self.name: str = reference["shape"]
        definition = model.shapes[self.name]
        traits = {key: value for key, value in reference.items() if key != "shape"}
        self._model = model
        self._definition = {**definition, **traits} if traits else definition

    @property
    def type_name(self) -> str:
        return str(self._definition["type"])

    @cached_property
    def metadata(self) -> dict[str, Any]:
        return {key: self._definition[key] for key in _METADATA_TRAITS if key in self._definition}

    @property
    def enum(self) -> list[str]:
        return list(self._definition.get("enum", ()))

    @cached_property
    def members(self) -> dict[str, ShapeJson]:
        """A structure's members in model order."""
        return {name: ShapeJson(self._model, reference)
                for name, reference in self._definition.get("members", {}).items()}

    @cached_property
    def member(self) -> ShapeJson:
        """A list's item shape."""
        return ShapeJson(self._model, self._definition["member"])


class OperationJson(Struct, frozen=True):
    input_shape: ShapeJson | None


class ServiceJson:
    """A service-2 model as JSON: the operations, their input shapes and the API's metadata."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.metadata: dict[str, Any] = document["metadata"]
        self.shapes: dict[str, dict[str, Any]] = document["shapes"]
        self._operations: dict[str, dict[str, Any]] = document["operations"]

    @property
    def signing_name(self) -> str:
        return str(self.metadata.get("signingName", self.metadata["endpointPrefix"]))

    @property
    def operation_names(self) -> list[str]:
        return list(self._operations)

    def operation_model(self, name: str) -> OperationJson:
        reference = self._operations[name].get("input")
        return OperationJson(ShapeJson(self, reference) if reference else None)


def read_service_json(name: str) -> ServiceJson:
    """The newest `service-2` model botocore ships for API `name` ("stepfunctions", "swf", ...)."""
    spec = importlib.util.find_spec("botocore")  # finds botocore's folder without importing it
    if spec is None or not spec.submodule_search_locations:
        raise UnknownService(name)
    versions = sorted((Path(spec.submodule_search_locations[0]) / "data" / name).glob("*/service-2.json*"))
    if not versions:
        raise UnknownService(name)
    newest = versions[-1]
    data = newest.read_bytes()
    return ServiceJson(json.loads(gzip.decompress(data) if newest.suffix == ".gz" else data))
