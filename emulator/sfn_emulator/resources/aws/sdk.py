"""What the AWS SDKs for Java decide when Step Functions calls a service, rebuilt on botocore's models.

Step Functions runs its optimized integrations (`arn:aws:states:::sqs:sendMessage`) on the AWS SDK
for Java 1.x and its `aws-sdk:*` integrations on the SDK for Java 2.x. From those SDKs come:

- the names in a failed task's Error: `<Service>.<Exception>`, with the 2.x SDK's class names
  (`DynamoDb`, `SecretsManager`, `S3.NoSuchKeyException`; docs: "Learning to use AWS service SDK
  integrations"), or the 1.x SDK's (`SQS.QueueDoesNotExistException`, `AmazonSQSException`);
- how the JSON parameters bind to the request: members named in PascalCase (`StateMachineArn`
  for `stateMachineArn`, `EqualsValue` for `Equals`), a non-string value given to a string member
  sent as its JSON text, and any value given to a blob member written as its JSON text; a parameter
  the request has no member for is refused ("The field Filter is not supported by Step Functions.":
  docs, "Passing parameters to a service API", where EC2's member is `Filters`);
- how the response becomes JSON: members in PascalCase, timestamps as ISO-8601 instants,
  a streamed body as its text, other binary values in base64.
"""

from __future__ import annotations

import base64
import re
import threading
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable


from sfn_emulator.asl.errors import RUNTIME, StatesError
from sfn_emulator.asl.json_text import compact_json

if TYPE_CHECKING:
    import botocore.session
    from botocore.model import ServiceModel, Shape

# Member names the SDK renames because they clash with generated methods (docs: API naming conventions).
_ASL_RENAMED_MEMBERS = {"Equals": "EqualsValue"}


# -- names ------------------------------------------------------------------------------------------

def split_on_word_boundaries(text: str) -> list[str]:
    """The words of a model name, as the SDK for Java 2.x code generator splits them."""
    text = re.sub(r"[^A-Za-z0-9]+", " ", text)
    text = re.sub(r"([^a-z]{2,})v([0-9]+)", r"\1 v\2 ", text)
    text = re.sub(r"([^A-Z]{2,})V([0-9]+)", r"\1 V\2 ", text)
    text = " ".join(re.split(r"(?<=[a-z])(?=[A-Z](?:[a-zA-Z]|[0-9]))", text))
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    text = re.sub(r"([0-9])([a-zA-Z])", r"\1 \2", text)
    return re.sub(r" +", " ", text).strip().split(" ")


def pascal_case(text: str) -> str:
    """`DynamoDB` -> `DynamoDb`, `Secrets Manager` -> `SecretsManager`, `SFN` -> `Sfn`."""
    return "".join(word.lower().capitalize() for word in split_on_word_boundaries(text) if word)


def sdk_v2_service_name(model: ServiceModel) -> str:
    """The 2.x SDK's name of a service (its client is `<name>Client`), from the model's serviceId."""
    name = pascal_case(model.metadata["serviceId"])
    name = name.removeprefix("Amazon").removeprefix("Aws")
    return name.removesuffix("Service")


def sdk_v2_exception_name(shape_name: str) -> str:
    if shape_name.endswith("Fault"):
        return pascal_case(shape_name.removesuffix("Fault")) + "Exception"
    if shape_name.endswith("Exception"):
        return pascal_case(shape_name)
    return pascal_case(shape_name) + "Exception"


def sdk_v1_exception_name(shape_name: str) -> str:
    return shape_name if shape_name.endswith("Exception") else shape_name + "Exception"


def modelled_error_shape(model: ServiceModel, code: str, query_code: str | None = None) -> str | None:
    """The name of the error shape a service's error code stands for, if the model declares one."""
    for shape in model.error_shapes:
        if code in (shape.error_code, shape.name) or query_code == shape.name:
            return shape.name
    return None


class SdkServices:
    """Service models by the names `aws-sdk:` ARNs use: the 2.x SDK's service name in lower case
    (`sfn`, `eventbridge`, `cloudwatchlogs`), which is not always botocore's (`stepfunctions`, `events`, `logs`)."""

    _arn_names: dict[str, str] | None = None  # shared by all instances: reading the models takes a second or two
    _arn_names_lock = threading.Lock()
    # One botocore session for the process, so each service's model is read and parsed once, whichever
    # integration, mock check or endpoint asks for it first.
    _session: botocore.session.Session | None = None
    _lock = threading.Lock()

    def model(self, botocore_name: str) -> ServiceModel:
        with SdkServices._lock:
            return self._botocore_session().get_service_model(botocore_name)

    @staticmethod
    def _botocore_session() -> botocore.session.Session:
        """botocore's session, made (and botocore's session machinery imported) on first use."""
        if SdkServices._session is None:
            import botocore.session

            SdkServices._session = botocore.session.get_session()
        return SdkServices._session

    def botocore_name(self, arn_name: str) -> str | None:
        """The botocore service an `aws-sdk:` ARN names, or None when moto implements no such service."""
        from botocore.exceptions import UnknownServiceError

        try:  # most services carry the same name in both SDKs: check that one before reading many models
            if sdk_v2_service_name(self.model(arn_name)).lower() == arn_name:
                return arn_name
        except UnknownServiceError:
            pass
        return self._names_of_moto_services().get(arn_name)

    def _names_of_moto_services(self) -> dict[str, str]:
        """ARN name -> botocore name, for the services moto has a module of that name for."""
        with SdkServices._arn_names_lock:
            if SdkServices._arn_names is None:
                from moto.backends import list_of_moto_modules

                with self._lock:
                    known = set(self._botocore_session().get_available_services())
                names: dict[str, str] = {}
                for service in sorted(known.intersection(list_of_moto_modules())):
                    names.setdefault(sdk_v2_service_name(self.model(service)).lower(), service)
                SdkServices._arn_names = names
            return SdkServices._arn_names


# -- values ---------------------------------------------------------------------------------------

def asl_member_name(member: str) -> str:
    """How a state names a request or response member: PascalCase, with the SDK's renames."""
    return _ASL_RENAMED_MEMBERS.get(member, member[:1].upper() + member[1:])


def unsupported_field(value: Any, shape: Shape) -> str | None:
    """The first of a state's parameters that no member of the request (`shape`) takes, or None.

    Only the request's own fields are judged, as AWS's documented case is (EC2's `Filter` for `Filters`):
    what a member holds is bound as the SDK binds it (`to_request`)."""
    if shape.type_name != "structure" or not isinstance(value, dict) or _is_document(shape):
        return None
    members = {asl_member_name(name) for name in shape.members}
    return next((key for key in value if key not in members), None)


def _is_document(shape: Shape) -> bool:
    return bool(getattr(shape, "is_document_type", False))


def check_parameters(payload: Any, shape: Shape | None) -> None:
    """Refuse, as Step Functions does before any call, a parameter the request (`shape`) has no member for."""
    field = unsupported_field(payload, shape) if shape is not None else None
    if field is not None:
        raise StatesError(RUNTIME, f"The field \"{field}\" is not supported by Step Functions")


def request_shape(botocore_name: str, operation: str) -> Shape | None:
    """The request shape of a service's operation, from models read once for the whole process."""
    return SdkServices().model(botocore_name).operation_model(operation).input_shape


def to_request(value: Any, shape: Shape) -> Any:
    """A state's parameters for `shape`, as botocore takes them; parameters the shape lacks are left out."""
    kind = shape.type_name
    if _is_document(shape):  # any JSON, as it is
        return value
    if kind == "structure" and isinstance(value, dict):
        members = {asl_member_name(name): (name, member) for name, member in shape.members.items()}
        request = {}
        for key, item in value.items():
            if key in members:
                name, member = members[key]
                request[name] = to_request(item, member)
        return request
    if kind == "list" and isinstance(value, list):
        return [to_request(item, shape.member) for item in value]
    if kind == "map" and isinstance(value, dict):
        return {key: to_request(item, shape.value) for key, item in value.items()}
    if kind == "string" and value is not None and not isinstance(value, str):
        return compact_json(value)
    if kind == "blob" and isinstance(value, bytes):  # the engine's own objects (a ResultWriter's files), as they are
        return value
    if kind == "blob" and value is not None:
        return compact_json(value).encode("utf-8")
    return value


def from_response(value: Any, shape: Shape | None, timestamp: Callable[[datetime], Any] | None = None) -> Any:
    """A botocore result as the task's JSON result; timestamps as `timestamp` writes them (the 2.x SDK's
    ISO-8601 instants unless told otherwise: the 1.x SDK writes epoch milliseconds, `epoch_millis`)."""
    from botocore.response import StreamingBody

    if isinstance(value, StreamingBody):
        return value.read().decode("utf-8", errors="replace")
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, datetime):
        return (timestamp or instant_text)(value)
    if isinstance(value, dict):
        if shape is not None and shape.type_name == "structure":
            members = shape.members
            return {asl_member_name(key): from_response(item, members.get(key), timestamp)
                    for key, item in value.items()}
        item_shape = shape.value if shape is not None and shape.type_name == "map" else None
        return {key: from_response(item, item_shape, timestamp) for key, item in value.items()}
    if isinstance(value, list):
        item_shape = shape.member if shape is not None and shape.type_name == "list" else None
        return [from_response(item, item_shape, timestamp) for item in value]
    return value


def epoch_millis(moment: datetime) -> int:
    """A timestamp as the 1.x SDK writes it into a result: milliseconds since the epoch."""
    moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1000)


def instant_text(moment: datetime) -> str:
    """A timestamp as Java's `Instant.toString()` writes it: UTC, fraction only when there is one."""
    moment = moment.astimezone(timezone.utc) if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        fraction = f"{moment.microsecond:06d}"
        text += "." + (fraction[:3] if fraction.endswith("000") else fraction)
    return text + "Z"

