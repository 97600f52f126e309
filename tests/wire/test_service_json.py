"""The request decoders' model, read as plain JSON, is botocore's model: every operation of the APIs
served has the same input shapes, member by member, as `botocore.model` resolves them."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.loaders import create_loader
from botocore.model import ServiceModel

from sfn_emulator.protocol.service_json import UnknownService, read_service_json

SERVED_APIS = ["stepfunctions"]


def _botocore_model(name: str) -> ServiceModel:
    loader = create_loader()
    return ServiceModel(loader.load_service_model(name, "service-2"), service_name=name)


def _shape_outline(shape: Any, seen: frozenset[str] = frozenset()) -> Any:
    """What the decoders read of a shape, recursively (a shape inside itself is named, not walked)."""
    if shape is None:
        return None
    outline: dict[str, Any] = {"name": shape.name, "type": shape.type_name, "metadata": dict(shape.metadata)}
    if shape.type_name == "string":
        outline["enum"] = list(getattr(shape, "enum", None) or [])
    if shape.name in seen:
        return outline
    seen = seen | {shape.name}
    if shape.type_name == "structure":
        outline["members"] = [(name, _shape_outline(member, seen)) for name, member in shape.members.items()]
    elif shape.type_name == "list":
        outline["member"] = _shape_outline(shape.member, seen)
    return outline


@pytest.mark.parametrize("api", SERVED_APIS)
def test_every_operation_reads_as_botocore_reads_it(api: str) -> None:
    ours, botocores = read_service_json(api), _botocore_model(api)
    assert ours.operation_names == list(botocores.operation_names)
    assert (ours.metadata["targetPrefix"], ours.signing_name) == (botocores.metadata["targetPrefix"], botocores.signing_name)
    for operation in ours.operation_names:
        assert (_shape_outline(ours.operation_model(operation).input_shape)
                == _shape_outline(botocores.operation_model(operation).input_shape)), operation


def test_an_api_botocore_has_no_model_of_is_refused() -> None:
    with pytest.raises(UnknownService):
        read_service_json("no-such-service")
