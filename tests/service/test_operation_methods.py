"""The control plane answers every operation of botocore's model, each declared once in the operation
table and answered by one component method taking exactly its members."""

from __future__ import annotations

import inspect

import botocore.session
import pytest
from botocore import xform_name

from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import UnknownOperationException
from sfn_emulator.service.operation_table import OPERATIONS

MODEL = botocore.session.get_session().get_service_model("stepfunctions")


def test_the_table_declares_exactly_the_model_s_operations() -> None:
    assert set(OPERATIONS) == set(MODEL.operation_names)


@pytest.mark.parametrize("operation", MODEL.operation_names)
def test_method_takes_the_operation_members(service: StepFunctionsService, operation: str) -> None:
    method = getattr(service, xform_name(operation))
    assert method.__self__ is getattr(service, OPERATIONS[operation])  # the component the table names
    parameters = {
        name: parameter for name, parameter in inspect.signature(method.__wrapped__).parameters.items()
        if name not in ("self", "store")
    }
    shape = MODEL.operation_model(operation).input_shape
    assert set(parameters) == set(shape.members)
    required = {name for name, parameter in parameters.items() if parameter.default is inspect.Parameter.empty}
    assert required == set(shape.required_members)


@pytest.mark.parametrize("name", ["LaunchRocket", "ExecutionEvents", "Reset", "createStateMachine"])
def test_unknown_operations_are_refused(service: StepFunctionsService, name: str) -> None:
    with pytest.raises(UnknownOperationException):
        service.handle(name, {}, account="123456789012", region="us-east-1")


@pytest.mark.parametrize("name", ["launch_rocket", "_store", "handle_"])
def test_a_name_that_is_no_operation_is_no_attribute(service: StepFunctionsService, name: str) -> None:
    with pytest.raises(AttributeError):
        getattr(service, name)
