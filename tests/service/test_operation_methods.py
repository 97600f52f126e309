"""The control plane has one method per operation of botocore's model, taking exactly its members."""

from __future__ import annotations

import inspect

import botocore.session
import pytest
from botocore import xform_name

from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import UnknownOperationException

MODEL = botocore.session.get_session().get_service_model("stepfunctions")


@pytest.mark.parametrize("operation", MODEL.operation_names)
def test_method_takes_the_operation_members(operation: str) -> None:
    method = getattr(StepFunctionsService, xform_name(operation))
    parameters = {
        name: parameter for name, parameter in inspect.signature(method.__wrapped__).parameters.items()
        if name not in ("self", "store")
    }
    shape = MODEL.operation_model(operation).input_shape
    assert set(parameters) == set(shape.members)
    required = {name for name, parameter in parameters.items() if parameter.default is inspect.Parameter.empty}
    assert required == set(shape.required_members)


def test_unknown_operations_are_refused(service: StepFunctionsService) -> None:
    with pytest.raises(UnknownOperationException):
        service.handle("LaunchRocket", {}, account="123456789012", region="us-east-1")
