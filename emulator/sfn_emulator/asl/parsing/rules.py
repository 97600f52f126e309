"""The fixed facts of the language the parser checks against besides its fields (`field_table`): the
state types, the limits AWS applies, and the texts shared by many checks."""

from __future__ import annotations

from typing import Any, Callable, Iterator

from sfn_emulator.asl.model import JSONATA, JSONPATH
from sfn_emulator.asl.validation import ERROR, SCHEMA_VALIDATION_FAILED, Diagnostic


STANDARD = "STANDARD"
EXPRESS = "EXPRESS"

STATE_TYPES = ("Task", "Wait", "Pass", "Succeed", "Fail", "Choice", "Parallel", "Map")
QUERY_LANGUAGES = (JSONPATH, JSONATA)
MAX_SECONDS = 99999999  # the largest TimeoutSeconds, HeartbeatSeconds, Wait Seconds... AWS accepts
MAX_DIAGNOSTICS = 100  # ValidateStateMachineDefinition's default maxResults

COMMON_FIELDS = frozenset({"Type", "Comment", "QueryLanguage"})
ASSIGNING_TYPES = ("Pass", "Task", "Choice", "Wait", "Parallel", "Map")  # the states that take Assign
# Fields of a JSONata Choice rule that a JSONPath one may not have.
JSONATA_RULE_FIELDS = ("Condition", "Output")
MAX_VARIABLE_NAME_LENGTH = 80
RESERVED_VARIABLE = "states"
TERMINAL_TYPES = ("Succeed", "Fail")  # a tuple: membership tests may meet unhashable JSON values
MAX_ITEMS = 100_000_000  # AWS reads no more items than this
ITEM_READER_RESOURCES = ("arn:aws:states:::s3:getObject", "arn:aws:states:::s3:listObjectsV2")
RESULT_WRITER_RESOURCES = ("arn:aws:states:::s3:putObject",)
WAIT_DURATION_FIELDS = ("Seconds", "SecondsPath", "Timestamp", "TimestampPath")
# The optimized integrations of the services whose every action AWS's developer guide lists; a Task
# resource naming another action of theirs is refused (any other call goes through `aws-sdk:`).
OPTIMIZED_ACTIONS: dict[str, frozenset[str]] = {
    "dynamodb": frozenset({"getItem", "putItem", "updateItem", "deleteItem"}),
    "sqs": frozenset({"sendMessage"}),
    "sns": frozenset({"publish"}),
    "events": frozenset({"putEvents"}),
    "lambda": frozenset({"invoke"}),
    "states": frozenset({"startExecution"}),
    "http": frozenset({"invoke"}),
}
# The HTTP Task's required parameters ("Call HTTPS APIs in Step Functions workflows"), each with the
# names a JSONPath state may give it (a static value, or `.$` to take it from the data).
HTTP_TASK_RESOURCE = "invoke"
HTTP_TASK_REQUIRED = (("ApiEndpoint",), ("Method",), ("Authentication", "InvocationConfig"))
ALL_ERRORS = "States.ALL"

# JSON types as AWS names them in "Expected value of type [...]".
JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "STRING": lambda value: isinstance(value, str),
    "INTEGER": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "NUMBER": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
    "BOOLEAN": lambda value: isinstance(value, bool),
    "OBJECT": lambda value: isinstance(value, dict),
    "ARRAY": lambda value: isinstance(value, list),
}
ABSENT = object()


def expected_type(json_type: str) -> str:
    """AWS's text for a field whose value is not of `json_type` (a key of JSON_TYPES)."""
    return f"Expected value of type [{json_type}]"


EMPTY = "Value cannot be empty"  # AWS's text for an empty States, Choices, Branches or ErrorEquals (recorded: Branches)


def schema_error(message: str, location: str | None) -> Diagnostic:
    return Diagnostic(ERROR, SCHEMA_VALIDATION_FAILED, message, location)


def listed(names: Iterator[str] | tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(names) + "]"
