"""TestState's `mock.fieldValidationMode`: a mocked Task result checked against the API it stands in for.

The result of a service integration is the operation's output in the names a state sees
(PascalCase: `ExecutionArn` for `executionArn`), so the check walks botocore's output shape:

- `STRICT` (the default): every required member is present, and every present member conforms;
- `PRESENT`: every present member conforms;
- `NONE`: nothing is checked.

Members the model does not know are let through (AWS does, for forward compatibility). A refusal
is a ValidationException in AWS's words (recorded on AWS), e.g. "Mock result schema validation
error: Field 'StartDate' must be a string". Only request-response integrations are checked: a
callback's or a `.sync` job's result is not the operation's output, and a Lambda function ARN
returns whatever the function returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any


from sfn_emulator.asl.task_targets import INTEGRATION, REQUEST_RESPONSE, ResourceArn
from sfn_emulator.resources.aws.sdk import SdkServices, asl_member_name
from sfn_emulator.service.errors import ValidationException

if TYPE_CHECKING:
    from botocore.model import OperationModel, Shape

STRICT, PRESENT, NONE = "STRICT", "PRESENT", "NONE"
_PREFIX = "Mock result schema validation error: "
_SDK_PREFIX = "aws-sdk:"
# Optimized integrations whose ARN service is not botocore's name for the service.
_OPTIMIZED_SERVICE_NAMES = {"states": "stepfunctions"}
_services = SdkServices()


def check_mock_result(resource: ResourceArn, result: Any, mode: str) -> None:
    """Refuse `result` (parsed JSON) when it does not fit the output of the API `resource` calls."""
    if mode == NONE or not isinstance(result, dict):
        return
    operation = _operation(resource)
    if operation is None or operation.output_shape is None:
        return
    _check(result, operation.output_shape, None, mode)


def _operation(resource: ResourceArn) -> OperationModel | None:
    if resource.kind != INTEGRATION or resource.pattern != REQUEST_RESPONSE:
        return None
    if resource.service.startswith(_SDK_PREFIX):
        service = _services.botocore_name(resource.service.removeprefix(_SDK_PREFIX))
    else:
        service = _OPTIMIZED_SERVICE_NAMES.get(resource.service, resource.service)
    if service is None:
        return None
    from botocore.exceptions import UnknownServiceError  # botocore's exceptions pull its vendored ones

    try:
        model = _services.model(service)
    except UnknownServiceError:
        return None
    name = resource.action[:1].upper() + resource.action[1:]
    return model.operation_model(name) if name in model.operation_names else None


def _check(value: Any, shape: Shape, field: str | None, mode: str) -> None:
    kind = shape.type_name
    if kind == "structure":
        if not isinstance(value, dict):
            _refuse(field, "must be an object")
        members = {asl_member_name(name): member for name, member in shape.members.items()}
        if mode == STRICT:
            for required in shape.required_members:
                if asl_member_name(required) not in value:
                    raise ValidationException(f"{_PREFIX}Required field '{asl_member_name(required)}' is missing")
        for name, item in value.items():
            if name in members:
                _check(item, members[name], name, mode)
    elif kind == "list":
        if not isinstance(value, list):
            _refuse(field, "must be an array")
        for item in value:
            _check(item, shape.member, field, mode)
    elif kind == "map":
        if not isinstance(value, dict):
            _refuse(field, "must be an object")
        for item in value.values():
            _check(item, shape.value, field, mode)
    elif kind in ("string", "timestamp", "blob"):
        if not isinstance(value, str):
            _refuse(field, "must be a string")
        if getattr(shape, "enum", None) and value not in shape.enum:
            _refuse(field, "is not an expected value")
        if len(value) < shape.metadata.get("min", 0):
            _refuse(field, "is smaller than the minimum length")
    elif kind in ("integer", "long", "float", "double"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                kind in ("integer", "long") and not float(value).is_integer()):
            _refuse(field, "must be a number")
        if "min" in shape.metadata and value < shape.metadata["min"]:
            _refuse(field, "is less than the minimum value")
        if "max" in shape.metadata and value > shape.metadata["max"]:
            _refuse(field, "exceeds the maximum value")
    elif kind == "boolean" and not isinstance(value, bool):
        _refuse(field, "must be a boolean")


def _refuse(field: str | None, problem: str) -> None:
    raise ValidationException(f"{_PREFIX}Field '{field}' {problem}")
