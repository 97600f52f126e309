"""The one table of ASL fields: who takes each field, in which query language, and the forms it is written in.

A row names a field, its owners (the state types, or the objects such as `Retrier` or `ItemBatcher`, that
take it) and its query languages. A row with a `literal` rule is read by the table's reader
(`parsing.field_reading.TableFields`) into the model attribute of its snake_case name: a plain field
(a Retrier's `MaxAttempts`, a Map's `Label`) gives its checked value; a field that may also be written
as a `…Path` twin (JSONPath) or a `{% %}` expression (JSONata) gives one compiled field
(`sfn_emulator.asl.fields`) whatever form its author chose. A row without a `literal` is read by the code
of its owner (templates, paths, Retry, Catch, Branches, ...); the table still says who takes it.

So a new field is one row here (and, if it has a `…Path` twin, its `PathRule` in `asl.fields`), its
attribute on the model and its evaluation. The rows' order is the order AWS's "only supported for the
... QueryLanguage" diagnostics list misplaced fields in, and the order the reader reads an owner's fields.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator

from msgspec import Struct

from sfn_emulator.asl import fields
from sfn_emulator.asl.jsonata_expressions import (
    INTEGER,
    NON_NEGATIVE_INTEGER,
    NUMBER,
    POSITIVE_INTEGER,
    STRING,
    ResultType,
)
from sfn_emulator.asl.model import JSONATA, JSONPATH
from sfn_emulator.asl.parsing.rules import EXPRESS, MAX_ITEMS, MAX_SECONDS, STANDARD, STATE_TYPES, expected_type
from sfn_emulator.asl.timestamps import NOT_A_TIMESTAMP, is_timestamp, parse_timestamp

BOTH = (JSONPATH, JSONATA)
STATE_MACHINE, BRANCH, ITEM_PROCESSOR = "StateMachine", "Branch", "ItemProcessor"  # the owners of machine fields
_MACHINES = (STATE_MACHINE, BRANCH, ITEM_PROCESSOR)
_FLOWING = ("Task", "Wait", "Pass", "Parallel", "Map")  # the types that take Next and End
_IO = ("Task", "Wait", "Pass", "Succeed", "Choice", "Parallel", "Map")  # the types that filter input and output


class LiteralRule(Struct, frozen=True):
    """How a field's literal value is checked, with AWS's texts: its JSON type (a key of
    `rules.JSON_TYPES`), its range or allowed values, a further check giving AWS's text of a problem,
    and what the checked value becomes in the model."""

    json_type: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    problem: Callable[[Any], str | None] | None = None
    convert: Callable[[Any], Any] | None = None


class FieldSpec(Struct, frozen=True):
    """One field: its owners and query languages, and the forms the table's reader reads it in.

    `path`: the rule of its `…Path` twin (a JSONPath row of its own, named `<name>Path`, read by a
    reference path, or also an intrinsic call when `path_takes_intrinsic`; the field and its twin
    exclude each other, unless `twin_exclusive` is False because the owner checks a wider choice);
    `expression`: the type a `{% %}` expression must give in a JSONata state, and `expression_convert`
    what its value becomes."""

    name: str
    owners: tuple[str, ...]
    languages: tuple[str, ...] = BOTH
    literal: LiteralRule | None = None
    path: fields.PathRule | None = None
    path_takes_intrinsic: bool = False
    twin_exclusive: bool = True
    expression: ResultType | None = None
    expression_convert: Callable[[Any], Any] | None = None

    @property
    def attribute(self) -> str:
        """The model attribute the field's value goes to: the snake_case of its name."""
        return _WORD_START.sub("_", self.name).lower()

    @property
    def twin(self) -> str | None:
        """The name of its `…Path` twin, if it has one."""
        return f"{self.name}Path" if self.path is not None else None


_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")  # CSVHeaderLocation: csv_header_location


def _timestamp_problem(text: str) -> str | None:
    return None if is_timestamp(text) else NOT_A_TIMESTAMP


def _not_all_text(items: list) -> str | None:
    return None if all(isinstance(item, str) for item in items) else expected_type("STRING")


_STRING = LiteralRule("STRING")
_SECONDS = LiteralRule("INTEGER", minimum=1, maximum=MAX_SECONDS)
_BATCH_SIZE = LiteralRule("INTEGER", minimum=1)


ROWS: tuple[FieldSpec, ...] = (
    # A whole definition, a Parallel branch, a Map item processor
    FieldSpec("StartAt", _MACHINES),
    FieldSpec("States", _MACHINES),
    FieldSpec("QueryLanguage", (STATE_MACHINE,)),
    FieldSpec("Comment", _MACHINES, literal=_STRING),
    FieldSpec("TimeoutSeconds", (STATE_MACHINE,), literal=LiteralRule("INTEGER", minimum=0, maximum=MAX_SECONDS)),
    FieldSpec("Version", (STATE_MACHINE,), literal=_STRING),
    FieldSpec("ProcessorConfig", (ITEM_PROCESSOR,)),
    # A state
    FieldSpec("Next", _FLOWING),
    FieldSpec("End", _FLOWING),
    FieldSpec("InputPath", _IO, (JSONPATH,)),
    FieldSpec("Parameters", ("Pass", "Task", "Parallel", "Map"), (JSONPATH,)),
    FieldSpec("Arguments", ("Task", "Parallel"), (JSONATA,)),
    FieldSpec("ResultSelector", ("Task", "Parallel", "Map"), (JSONPATH,)),
    FieldSpec("ResultPath", ("Pass", "Task", "Parallel", "Map"), (JSONPATH,)),
    FieldSpec("OutputPath", _IO, (JSONPATH,)),
    FieldSpec("ItemsPath", ("Map",), (JSONPATH,)),
    FieldSpec("Items", ("Map",), (JSONATA,)),
    FieldSpec("Output", _IO, (JSONATA,)),
    FieldSpec("Resource", ("Task",)),
    FieldSpec("Credentials", ("Task",)),
    FieldSpec("Retry", ("Task", "Parallel", "Map")),
    FieldSpec("Catch", ("Task", "Parallel", "Map")),
    FieldSpec("Choices", ("Choice",)),
    FieldSpec("Default", ("Choice",)),
    FieldSpec("Seconds", ("Wait",), literal=LiteralRule("INTEGER", minimum=0, maximum=MAX_SECONDS),
              path=fields.SECONDS_PATH, twin_exclusive=False,  # a Wait takes exactly one of its four durations
              expression=NON_NEGATIVE_INTEGER, expression_convert=fields.capped_seconds),
    FieldSpec("Timestamp", ("Wait",), literal=LiteralRule("STRING", problem=_timestamp_problem, convert=parse_timestamp),
              path=fields.TIMESTAMP_PATH, twin_exclusive=False,
              expression=STRING, expression_convert=fields.expression_timestamp),
    FieldSpec("TimeoutSeconds", ("Task",), literal=_SECONDS, path=fields.TIMEOUT_SECONDS_PATH,
              expression=POSITIVE_INTEGER),
    FieldSpec("HeartbeatSeconds", ("Task",), literal=_SECONDS, path=fields.HEARTBEAT_SECONDS_PATH,
              expression=POSITIVE_INTEGER),
    FieldSpec("Branches", ("Parallel",)),
    FieldSpec("ItemProcessor", ("Map",)),
    FieldSpec("Iterator", ("Map",)),
    FieldSpec("ItemSelector", ("Map",)),
    FieldSpec("ItemReader", ("Map",)),
    FieldSpec("ItemBatcher", ("Map",)),
    FieldSpec("ResultWriter", ("Map",)),
    FieldSpec("MaxConcurrency", ("Map",), literal=LiteralRule("INTEGER", minimum=0), path=fields.MAX_CONCURRENCY_PATH,
              expression=NON_NEGATIVE_INTEGER),
    FieldSpec("ToleratedFailurePercentage", ("Map",), literal=LiteralRule("NUMBER", minimum=0, maximum=100),
              path=fields.TOLERATED_FAILURE_PERCENTAGE_PATH, expression=NUMBER),
    FieldSpec("ToleratedFailureCount", ("Map",), literal=LiteralRule("INTEGER", minimum=0),
              path=fields.TOLERATED_FAILURE_COUNT_PATH, expression=INTEGER),
    FieldSpec("Label", ("Map",), literal=_STRING),
    FieldSpec("Error", ("Fail",), literal=_STRING, path=fields.ERROR_PATH, path_takes_intrinsic=True,
              expression=STRING),
    FieldSpec("Cause", ("Fail",), literal=_STRING, path=fields.CAUSE_PATH, path_takes_intrinsic=True,
              expression=STRING),
    FieldSpec("Result", ("Pass",), (JSONPATH,)),
    # A retrier of Retry, a catcher of Catch
    FieldSpec("ErrorEquals", ("Retrier", "Catcher")),
    FieldSpec("Next", ("Catcher",)),
    FieldSpec("ResultPath", ("Catcher",), (JSONPATH,)),
    FieldSpec("Output", ("Catcher",), (JSONATA,)),
    FieldSpec("Assign", ("Catcher",)),
    FieldSpec("Comment", ("Catcher",)),
    FieldSpec("IntervalSeconds", ("Retrier",), literal=_SECONDS),
    FieldSpec("MaxAttempts", ("Retrier",), literal=LiteralRule("INTEGER", minimum=0, maximum=MAX_SECONDS)),
    FieldSpec("BackoffRate", ("Retrier",), literal=LiteralRule("NUMBER", minimum=1)),
    FieldSpec("MaxDelaySeconds", ("Retrier",), literal=_SECONDS),
    FieldSpec("JitterStrategy", ("Retrier",), literal=LiteralRule("STRING", choices=("FULL", "NONE"))),
    FieldSpec("Comment", ("Retrier",), literal=_STRING),
    # A Map's ItemProcessor's ProcessorConfig
    FieldSpec("Mode", ("ProcessorConfig",), literal=LiteralRule("STRING", choices=("INLINE", "DISTRIBUTED"))),
    FieldSpec("ExecutionType", ("ProcessorConfig",), literal=LiteralRule("STRING", choices=(STANDARD, EXPRESS))),
    # A Distributed Map's ItemReader and ResultWriter
    FieldSpec("Resource", ("ItemReader", "ResultWriter")),
    FieldSpec("Parameters", ("ItemReader", "ResultWriter"), (JSONPATH,)),
    FieldSpec("Arguments", ("ItemReader", "ResultWriter"), (JSONATA,)),
    FieldSpec("ReaderConfig", ("ItemReader",)),
    FieldSpec("WriterConfig", ("ResultWriter",)),
    # A Distributed Map's ItemReader's ReaderConfig
    FieldSpec("CSVHeaders", ("ReaderConfig",), literal=LiteralRule("ARRAY", problem=_not_all_text, convert=tuple)),
    FieldSpec("InputType", ("ReaderConfig",),
              literal=LiteralRule("STRING", choices=("CSV", "JSON", "JSONL", "MANIFEST", "PARQUET"))),
    FieldSpec("CSVHeaderLocation", ("ReaderConfig",), literal=LiteralRule("STRING", choices=("FIRST_ROW", "GIVEN"))),
    FieldSpec("CSVDelimiter", ("ReaderConfig",),
              literal=LiteralRule("STRING", choices=("COMMA", "PIPE", "SEMICOLON", "SPACE", "TAB"))),
    FieldSpec("MaxItems", ("ReaderConfig",), literal=LiteralRule("INTEGER", minimum=0, maximum=MAX_ITEMS),
              path=fields.MAX_ITEMS_PATH, expression=INTEGER),
    FieldSpec("ItemsPointer", ("ReaderConfig",), literal=_STRING),
    FieldSpec("Transformation", ("ReaderConfig",), literal=LiteralRule("STRING", choices=("NONE", "LOAD_AND_FLATTEN"))),
    FieldSpec("ManifestType", ("ReaderConfig",), literal=LiteralRule("STRING", choices=("ATHENA_DATA", "S3_INVENTORY"))),
    # A Distributed Map's ItemBatcher
    FieldSpec("MaxItemsPerBatch", ("ItemBatcher",), literal=_BATCH_SIZE, path=fields.MAX_ITEMS_PER_BATCH_PATH,
              expression=POSITIVE_INTEGER),
    FieldSpec("MaxInputBytesPerBatch", ("ItemBatcher",), literal=_BATCH_SIZE,
              path=fields.MAX_INPUT_BYTES_PER_BATCH_PATH, expression=POSITIVE_INTEGER),
    FieldSpec("BatchInput", ("ItemBatcher",)),
    # A Distributed Map's ResultWriter's WriterConfig
    FieldSpec("Transformation", ("WriterConfig",), literal=LiteralRule("STRING", choices=("NONE", "COMPACT", "FLATTEN"))),
    FieldSpec("OutputType", ("WriterConfig",), literal=LiteralRule("STRING", choices=("JSON", "JSONL"))),
)


class FieldTable:
    """The rows, each field's `…Path` twin in its own JSONPath row right after it, and the questions the
    parser asks of them (answered once per table: a parse asks them for every state)."""

    def __init__(self, rows: tuple[FieldSpec, ...]) -> None:
        self.rows = tuple(_with_twins(rows))
        self._answers: dict[tuple[str, ...], Any] = {}

    def fields_of(self, owner: str, language: str) -> frozenset[str]:
        """The fields `owner` takes in `language` (a state's besides Type, Comment, QueryLanguage, Assign)."""
        return self._answer(("fields_of", owner, language), lambda: frozenset(
            spec.name for spec in self.rows if owner in spec.owners and language in spec.languages
        ))

    def only_in(self, language: str, state_type: str | None = None) -> tuple[str, ...]:
        """The state fields of `language` alone (of `state_type`'s, when given), in the table's order."""
        owners = STATE_TYPES if state_type is None else (state_type,)
        return self._answer(("only_in", language, *owners), lambda: tuple(
            spec.name for spec in self.rows
            if spec.languages == (language,) and any(owner in spec.owners for owner in owners)
        ))

    def read_by_table(self, owner: str) -> tuple[FieldSpec, ...]:
        """`owner`'s fields that the table's reader reads (those with a literal rule), in order."""
        return self._answer(("read_by_table", owner), lambda: tuple(
            spec for spec in self.rows if owner in spec.owners and spec.literal is not None
        ))

    def _answer(self, question: tuple[str, ...], work_out: Callable[[], Any]) -> Any:
        if question not in self._answers:
            self._answers[question] = work_out()
        return self._answers[question]


def _with_twins(rows: tuple[FieldSpec, ...]) -> Iterator[FieldSpec]:
    for spec in rows:
        yield spec
        if spec.twin is not None:
            yield FieldSpec(spec.twin, spec.owners, (JSONPATH,))


FIELDS = FieldTable(ROWS)
