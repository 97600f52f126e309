"""The one table of a state's fields: which state types take each field, in which query language.

The parser's field checks read it (`rules.STATE_FIELDS`, `JSONATA_STATE_FIELDS`, `JSONATA_FIELDS`,
`JSONPATH_ONLY_FIELDS` are derived from it), so a new field of a state is one row here plus its
reading in `states.py` and its evaluation. The rows' order is the order AWS's "only supported for
the ... QueryLanguage" diagnostics list misplaced fields in.
"""

from __future__ import annotations

from msgspec import Struct

from sfn_emulator.asl.model import JSONATA, JSONPATH

BOTH = (JSONPATH, JSONATA)
_FLOWING = ("Task", "Wait", "Pass", "Parallel", "Map")  # the types that take Next and End


class FieldSpec(Struct, frozen=True):
    """A state field: the state types that take it and the query languages it belongs to."""

    name: str
    state_types: tuple[str, ...]
    languages: tuple[str, ...] = BOTH


FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("Next", _FLOWING),
    FieldSpec("End", _FLOWING),
    FieldSpec("InputPath", ("Task", "Wait", "Pass", "Succeed", "Choice", "Parallel", "Map"), (JSONPATH,)),
    FieldSpec("Parameters", ("Pass", "Task", "Parallel", "Map"), (JSONPATH,)),
    FieldSpec("Arguments", ("Task", "Parallel"), (JSONATA,)),
    FieldSpec("ResultSelector", ("Task", "Parallel", "Map"), (JSONPATH,)),
    FieldSpec("ResultPath", ("Pass", "Task", "Parallel", "Map"), (JSONPATH,)),
    FieldSpec("OutputPath", ("Task", "Wait", "Pass", "Succeed", "Choice", "Parallel", "Map"), (JSONPATH,)),
    FieldSpec("ItemsPath", ("Map",), (JSONPATH,)),
    FieldSpec("Items", ("Map",), (JSONATA,)),
    FieldSpec("Output", ("Task", "Wait", "Pass", "Succeed", "Choice", "Parallel", "Map"), (JSONATA,)),
    FieldSpec("Resource", ("Task",)),
    FieldSpec("Credentials", ("Task",)),
    FieldSpec("Retry", ("Task", "Parallel", "Map")),
    FieldSpec("Catch", ("Task", "Parallel", "Map")),
    FieldSpec("TimeoutSeconds", ("Task",)),
    FieldSpec("HeartbeatSeconds", ("Task",)),
    FieldSpec("Choices", ("Choice",)),
    FieldSpec("Default", ("Choice",)),
    FieldSpec("Seconds", ("Wait",)),
    FieldSpec("SecondsPath", ("Wait",), (JSONPATH,)),
    FieldSpec("Timestamp", ("Wait",)),
    FieldSpec("TimestampPath", ("Wait",), (JSONPATH,)),
    FieldSpec("TimeoutSecondsPath", ("Task",), (JSONPATH,)),
    FieldSpec("HeartbeatSecondsPath", ("Task",), (JSONPATH,)),
    FieldSpec("Branches", ("Parallel",)),
    FieldSpec("ItemProcessor", ("Map",)),
    FieldSpec("Iterator", ("Map",)),
    FieldSpec("ItemSelector", ("Map",)),
    FieldSpec("ItemReader", ("Map",)),
    FieldSpec("ItemBatcher", ("Map",)),
    FieldSpec("ResultWriter", ("Map",)),
    FieldSpec("MaxConcurrency", ("Map",)),
    FieldSpec("MaxConcurrencyPath", ("Map",), (JSONPATH,)),
    FieldSpec("ToleratedFailurePercentage", ("Map",)),
    FieldSpec("ToleratedFailurePercentagePath", ("Map",), (JSONPATH,)),
    FieldSpec("ToleratedFailureCount", ("Map",)),
    FieldSpec("ToleratedFailureCountPath", ("Map",), (JSONPATH,)),
    FieldSpec("Label", ("Map",)),
    FieldSpec("Error", ("Fail",)),
    FieldSpec("ErrorPath", ("Fail",), (JSONPATH,)),
    FieldSpec("Cause", ("Fail",)),
    FieldSpec("CausePath", ("Fail",), (JSONPATH,)),
    FieldSpec("Result", ("Pass",), (JSONPATH,)),
)


def fields_of(state_type: str, language: str) -> frozenset[str]:
    """The fields a state of `state_type` takes in `language` (besides Type, Comment, QueryLanguage, Assign)."""
    return frozenset(spec.name for spec in FIELDS if state_type in spec.state_types and language in spec.languages)


def only_in(language: str, state_type: str | None = None) -> tuple[str, ...]:
    """The fields of `language` alone (of `state_type`'s, when given), in the table's order."""
    return tuple(spec.name for spec in FIELDS if spec.languages == (language,)
                 and (state_type is None or state_type in spec.state_types))
