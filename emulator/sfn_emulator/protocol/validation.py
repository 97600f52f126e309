"""Request decoding and constraint checks, compiled once from botocore's service model.

AWS Step Functions runs on Amazon's Coral framework, which handles a request in two passes, and
this module mirrors both:

1. Deserialization: a member of the wrong JSON type stops the request at once with a
   `SerializationException` in Coral's words ("class java.lang.String can not be converted to an
   Integer", "Start of list found where not expected", ...). Unknown members are ignored and a
   JSON null counts as an absent member.
2. Validation: every constraint of the model (required, length, range, enum, pattern) is checked
   and all violations are reported together, in model order, as one `ValidationException`:
   "2 validation errors detected: Value 'x' at 'name' failed to satisfy constraint: ...; ...".
   The value of a sensitive member is left out ("Value at 'input' failed ..."), as AWS does.

Each shape becomes a small decoder object when the app starts, so a request costs one walk over its
members and no model look-ups.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from sfn_emulator.protocol.errors import SerializationException, ValidationException

if TYPE_CHECKING:
    from botocore.model import ServiceModel
    from botocore.model import Shape as BotocoreShape

    from sfn_emulator.protocol.service_json import ServiceJson, ShapeJson

    Shape = BotocoreShape | ShapeJson  # botocore's shapes (other services' models) or the JSON reader's

# Integer shapes are Java ints and longs in Coral: a JSON number outside the range does not convert.
_INT_RANGES = {"integer": (-(2**31), 2**31 - 1), "long": (-(2**63), 2**63 - 1)}
_JAVA_TYPE_NAMES = {"integer": "Integer", "long": "Long", "float": "Float", "double": "Double"}

# AWS measures these payload shapes in UTF-8 bytes, not characters (its model has a trait for it that
# botocore's copy lacks; the API reference says "Length constraints apply to the payload size, and are
# expressed as bytes in UTF-8 encoding"), and words the violation accordingly.
UTF8_SIZED_SHAPES = frozenset({"SensitiveData"})

# Java regular-expression classes that Python's `re` spells differently.
_JAVA_REGEX_CLASSES = {r"\p{ASCII}": r"\x00-\x7F"}


class ConstraintViolations(ValidationException):
    """The request breaks constraints of the service model: Coral's validator speaks, not the service."""

    code = "ValidationException"


Violations = list[str]


class Decoder(ABC):
    """Decodes one JSON value for one shape: converts it, or raises SerializationException, and
    appends constraint violations to `violations`."""

    sensitive = False

    @abstractmethod
    def decode(self, value: Any, path: str, violations: Violations) -> Any: ...


def _describe_number(value: int | float) -> str:
    """The Java class Coral's JSON reader gives a number, as named in its conversion errors."""
    if isinstance(value, float) and not value.is_integer():
        return "java.lang.Double"
    if -(2**15) <= value < 2**15:
        return "java.lang.Short"
    if -(2**31) <= value < 2**31:
        return "java.lang.Integer"
    return "java.lang.Long"


def _wrong_container(value: Any) -> SerializationException | None:
    """Coral's complaint when an object or array stands where a scalar belongs."""
    if isinstance(value, dict):
        return SerializationException("Start of structure or map found where not expected.")
    if isinstance(value, list):
        return SerializationException("Start of list found where not expected")
    return None


def _violation(decoder: Decoder, value: Any, path: str, constraint: str) -> str:
    if value is None:
        shown = "Value null"
    elif decoder.sensitive:
        shown = "Value"
    else:
        shown = f"Value '{_java_text(value)}'"
    return f"{shown} at '{path}' failed to satisfy constraint: {constraint}"


def _java_text(value: Any) -> str:
    """The value as Java's toString would print it inside a message."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_java_text(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}={_java_text(item)}" for key, item in value.items()) + "}"
    return str(value)


class StringDecoder(Decoder):
    def __init__(self, shape: Shape) -> None:
        metadata = shape.metadata
        self.sensitive = bool(metadata.get("sensitive"))
        self.min_length: int | None = metadata.get("min")
        self.max_length: int | None = metadata.get("max")
        self.in_utf8_bytes = shape.name in UTF8_SIZED_SHAPES
        self.enum: tuple[str, ...] = tuple(getattr(shape, "enum", None) or ())
        self.enum_set = frozenset(self.enum)
        pattern = metadata.get("pattern")
        self.pattern_text: str | None = pattern
        self.pattern = re.compile(_python_regex(pattern), re.DOTALL) if pattern else None

    def decode(self, value: Any, path: str, violations: Violations) -> Any:
        if not isinstance(value, str):
            raise _wrong_container(value) or SerializationException(
                f"class {_scalar_class(value)} can not be converted to an String"
            )
        if self.enum_set and value not in self.enum_set:
            violations.append(
                _violation(self, value, path, f"Member must satisfy enum value set: [{', '.join(self.enum)}]")
            )
        if self.min_length is not None or self.max_length is not None:
            self._check_length(value, path, violations)
        if self.pattern is not None and not self.pattern.fullmatch(value):
            violations.append(
                _violation(self, value, path, f"Member must satisfy regular expression pattern: {self.pattern_text}")
            )
        return value

    def _check_length(self, value: str, path: str, violations: Violations) -> None:
        if self.in_utf8_bytes:
            size = len(value.encode("utf-8", "surrogatepass"))
            unit, noun = " bytes in UTF-8 encoding", "size"
        else:
            size, unit, noun = len(value), "", "length"
        if self.min_length is not None and size < self.min_length:
            violations.append(
                _violation(self, value, path, f"Member must have {noun} greater than or equal to {self.min_length}{unit}")
            )
        if self.max_length is not None and size > self.max_length:
            violations.append(
                _violation(self, value, path, f"Member must have {noun} less than or equal to {self.max_length}{unit}")
            )


def _scalar_class(value: Any) -> str:
    if isinstance(value, str):
        return "java.lang.String"
    return "java.lang.Boolean" if isinstance(value, bool) else _describe_number(value)


class NumberDecoder(Decoder):
    """Integer, long, float and double members; Coral truncates a fraction given to an integer."""

    def __init__(self, shape: Shape) -> None:
        self.sensitive = bool(shape.metadata.get("sensitive"))
        self.java_type = _JAVA_TYPE_NAMES[shape.type_name]
        self.int_range = _INT_RANGES.get(shape.type_name)
        self.minimum = shape.metadata.get("min")
        self.maximum = shape.metadata.get("max")

    def decode(self, value: Any, path: str, violations: Violations) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _wrong_container(value) or SerializationException(
                f"class {'java.lang.Boolean' if isinstance(value, bool) else 'java.lang.String'} "
                f"can not be converted to an {self.java_type}"
            )
        if self.int_range is not None:
            if not self.int_range[0] <= value <= self.int_range[1]:
                raise SerializationException(
                    f"class {_describe_number(value)} can not be converted to an {self.java_type}"
                )
            value = int(value)
        else:
            value = float(value)
        if self.minimum is not None and value < self.minimum:
            violations.append(
                _violation(self, value, path, f"Member must have value greater than or equal to {self.minimum}")
            )
        if self.maximum is not None and value > self.maximum:
            violations.append(
                _violation(self, value, path, f"Member must have value less than or equal to {self.maximum}")
            )
        return value


class BooleanDecoder(Decoder):
    """Coral also reads the strings "true" and "false" (in any case) as booleans."""

    def decode(self, value: Any, path: str, violations: Violations) -> Any:
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            if value.lower() in ("true", "false"):
                return value.lower() == "true"
            raise SerializationException(f"'{value.upper()}' can not be converted to an Boolean")
        raise _wrong_container(value) or SerializationException(
            f"class {_describe_number(value)} can not be converted to an Boolean"
        )


class TimestampDecoder(Decoder):
    """A JSON 1.0 timestamp: epoch seconds, a JSON number (what every SDK sends), within the years a
    date can have; anything else does not deserialize."""

    def decode(self, value: Any, path: str, violations: Violations) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                datetime.fromtimestamp(value, timezone.utc)
            except (OverflowError, OSError, ValueError):
                raise SerializationException(f"{value} is not a date: epoch seconds out of range") from None
            return value
        raise _wrong_container(value) or SerializationException(
            f"class {_scalar_class(value)} can not be converted to an Date")


class PassThroughDecoder(Decoder):
    """Shapes Step Functions' inputs do not use (maps, blobs): taken as sent."""

    def decode(self, value: Any, path: str, violations: Violations) -> Any:
        return value


class ListDecoder(Decoder):
    def __init__(self, shape: Shape, member: Decoder) -> None:
        self.sensitive = bool(shape.metadata.get("sensitive"))
        self.member = member
        self.min_length = shape.metadata.get("min")
        self.max_length = shape.metadata.get("max")

    def decode(self, value: Any, path: str, violations: Violations) -> Any:
        if not isinstance(value, list):
            if isinstance(value, dict):
                raise SerializationException("Start of structure or map found where not expected.")
            raise SerializationException("Expected list or null")
        if self.min_length is not None and len(value) < self.min_length:
            violations.append(
                _violation(self, value, path, f"Member must have length greater than or equal to {self.min_length}")
            )
        if self.max_length is not None and len(value) > self.max_length:
            violations.append(
                _violation(self, value, path, f"Member must have length less than or equal to {self.max_length}")
            )
        decoded = []
        for index, item in enumerate(value, start=1):
            item_path = f"{path}.{index}.member"
            if item is None:
                violations.append(_violation(self.member, None, item_path, "Member must not be null"))
            else:
                decoded.append(self.member.decode(item, item_path, violations))
        return decoded


class StructureDecoder(Decoder):
    """Members are filled in after construction so that recursive shapes compile."""

    def __init__(self, shape: Shape) -> None:
        self.sensitive = bool(shape.metadata.get("sensitive"))
        self.required = frozenset(shape.metadata.get("required", ()))
        self.members: tuple[tuple[str, Decoder], ...] = ()

    def decode(self, value: Any, path: str, violations: Violations) -> Any:
        if not isinstance(value, dict):
            if isinstance(value, list):
                raise SerializationException("Start of list found where not expected")
            raise SerializationException("Expected null")
        decoded = {}
        prefix = f"{path}." if path else ""
        for name, decoder in self.members:
            item = value.get(name)
            if item is None:
                if name in self.required:
                    violations.append(_violation(decoder, None, prefix + name, "Member must not be null"))
                continue
            decoded[name] = decoder.decode(item, prefix + name, violations)
        return decoded


class RequestDecoder:
    """Turns the JSON body of one operation into the members the control plane receives."""

    def __init__(self, root: Decoder) -> None:
        self._root = root

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        violations: Violations = []
        decoded = self._root.decode(body, "", violations)
        if violations:
            count = len(violations)
            raise ConstraintViolations(
                f"{count} validation error{'s' if count > 1 else ''} detected: {'; '.join(violations)}"
            )
        return decoded


def compile_request_decoders(model: ServiceModel | ServiceJson) -> dict[str, RequestDecoder]:
    """One decoder per operation, keyed by the botocore operation name."""
    compiled: dict[str, Decoder] = {}
    decoders = {}
    for name in model.operation_names:
        decoders[name] = RequestDecoder(_compile(model.operation_model(name).input_shape, compiled))
    return decoders


def _compile(shape: Shape, compiled: dict[str, Decoder]) -> Decoder:
    if shape.name in compiled:
        return compiled[shape.name]
    decoder: Decoder
    match shape.type_name:
        case "structure":
            structure = StructureDecoder(shape)
            compiled[shape.name] = structure  # before its members: a shape may contain itself
            structure.members = tuple((name, _compile(member, compiled)) for name, member in shape.members.items())
            return structure
        case "list":
            decoder = ListDecoder(shape, _compile(shape.member, compiled))
        case "string":
            decoder = StringDecoder(shape)
        case "integer" | "long" | "float" | "double":
            decoder = NumberDecoder(shape)
        case "boolean":
            decoder = BooleanDecoder()
        case "timestamp":
            decoder = TimestampDecoder()
        case _:
            decoder = PassThroughDecoder()
    compiled[shape.name] = decoder
    return decoder


def _python_regex(java_pattern: str) -> str:
    for java, python in _JAVA_REGEX_CLASSES.items():
        java_pattern = java_pattern.replace(java, f"[{python}]")
    return java_pattern
