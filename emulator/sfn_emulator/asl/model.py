"""The parsed form of a state machine definition: immutable records the engine interprets.

The parser (`sfn_emulator.asl.parser`) builds these once per definition; executing a state parses
nothing. Field names are the snake_case of the ASL keys. Compiled expressions (paths, payload
templates, intrinsic functions, Choice rules) are objects with an `evaluate`/`matches` method and
are pure functions of (value, scope). A field that may be written as a literal, a `…Path` or a
JSONata expression is one compiled field (`sfn_emulator.asl.fields`) named after its literal key.
The fields the parser's table reads (`asl.parsing.field_table`) fill the attribute of the snake_case
of their name on their owner's record (a test checks each row names one).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Union

from msgspec import Struct, field

from sfn_emulator.asl.task_targets import ResourceArn
from sfn_emulator.process.randomness import Randomness

if TYPE_CHECKING:  # the state_io module builds on this one
    from sfn_emulator.asl.state_io import StateIO

JSON = Any  # a decoded JSON value: dict, list, str, int, float, bool or None

JSONPATH = "JSONPath"
JSONATA = "JSONata"


class ExpressionScope(Protocol):
    """What an expression may read besides its input: the Context Object and variables."""

    @property
    def context_object(self) -> dict[str, JSON]:
        """The Context Object, read by `$$` paths."""
        ...

    def variable(self, name: str) -> JSON:
        """The value of workflow variable `name`; raises KeyError when it is not defined."""
        ...

    def visible_variables(self) -> Mapping[str, JSON]:
        """Every workflow variable in scope (JSONata expressions bind them all)."""
        ...

    def now(self) -> datetime:
        """The execution's clock (JSONata's `$now()` and `$millis()` read it)."""
        ...

    @property
    def randomness(self) -> Randomness:
        """The execution's source of ids and random numbers (`States.UUID`, `$uuid()`, ...)."""
        ...


class Expression(Protocol):
    """A compiled path, payload template, intrinsic call or JSONata expression."""

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        """Evaluate against the effective input; raises `StatesError` on failure."""
        ...


class Constant(Struct, frozen=True):
    """An expression whose value is fixed when the definition is parsed (a literal)."""

    value: JSON

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        return self.value


class ResultPath(Protocol):
    """A compiled ResultPath: where a state's result goes in its input."""

    def apply(self, state_input: JSON, result: JSON) -> JSON:
        """Return a new value: `state_input` with `result` placed at the path (input is not mutated)."""
        ...


class ChoiceCondition(Protocol):
    """A compiled Choice rule condition (data test, And/Or/Not, or a JSONata Condition)."""

    def matches(self, value: JSON, scope: ExpressionScope) -> bool:
        """True when the rule holds for the Choice state's effective input; raises `StatesError`."""
        ...


# gc=False: a record of strings, numbers and times (and tuples of them) can never be part of a reference
# cycle, so the cycle collector need not track it.
class Retrier(Struct, frozen=True, gc=False):
    error_equals: tuple[str, ...]
    interval_seconds: float = 1.0
    max_attempts: int = 3
    backoff_rate: float = 2.0
    max_delay_seconds: float | None = None
    jitter_strategy: str = "NONE"  # NONE | FULL
    comment: str | None = None


class Catcher(Struct, frozen=True):
    error_equals: tuple[str, ...]
    next: str
    result_path: ResultPath | None  # None: ResultPath null (output is the state input)
    assign: Expression | None = None
    output: Expression | None = None  # JSONata
    comment: str | None = None


class ChoiceBranch(Struct, frozen=True):
    condition: ChoiceCondition
    next: str
    assign: Expression | None = None
    output: Expression | None = None  # JSONata
    comment: str | None = None


class BaseState(Struct, frozen=True, kw_only=True):
    """Fields every state type may carry. `io` is its input/output processing in its query language
    (`sfn_emulator.asl.state_io`: InputPath ... OutputPath, or Arguments and Output)."""

    name: str
    type: str
    io: StateIO
    query_language: str = JSONPATH
    comment: str | None = None
    next: str | None = None
    end: bool = False
    assign: Expression | None = None  # evaluates to {variable name: value}


class PassState(BaseState, frozen=True, kw_only=True):
    result: Constant | None = None  # the `Result` field's value; None when there is none


class TaskState(BaseState, frozen=True, kw_only=True):
    resource: str  # the Resource as written
    target: ResourceArn  # what it names, read once when the definition is parsed
    retry: tuple[Retrier, ...] = ()
    catch: tuple[Catcher, ...] = ()
    timeout_seconds: Expression | None = None  # TimeoutSeconds, TimeoutSecondsPath or `{% %}` (sfn_emulator.asl.fields)
    heartbeat_seconds: Expression | None = None  # HeartbeatSeconds, HeartbeatSecondsPath or `{% %}`
    credentials: Expression | None = None


class ChoiceState(BaseState, frozen=True, kw_only=True):
    choices: tuple[ChoiceBranch, ...] = ()
    default: str | None = None


class WaitState(BaseState, frozen=True, kw_only=True):
    seconds: Expression | None = None  # Seconds, SecondsPath or `{% %}`: whole seconds
    timestamp: Expression | None = None  # Timestamp, TimestampPath or `{% %}`: a timezone-aware datetime


class SucceedState(BaseState, frozen=True, kw_only=True):
    pass


class FailState(BaseState, frozen=True, kw_only=True):
    error: Expression | None = None  # Error, ErrorPath or `{% %}`: a string
    cause: Expression | None = None  # Cause, CausePath or `{% %}`: a string


class ParallelState(BaseState, frozen=True, kw_only=True):
    branches: tuple[StateMachine, ...] = ()
    retry: tuple[Retrier, ...] = ()
    catch: tuple[Catcher, ...] = ()


class ReaderConfig(Struct, frozen=True):
    """An ItemReader's ReaderConfig: how the object's text becomes items, and how many."""

    input_type: str | None = None  # JSON | JSONL | CSV | MANIFEST | PARQUET; None: the objects a listing names
    csv_header_location: str | None = None  # FIRST_ROW | GIVEN
    csv_headers: tuple[str, ...] = ()
    csv_delimiter: str = "COMMA"  # COMMA | PIPE | SEMICOLON | SPACE | TAB
    max_items: Expression | None = None  # MaxItems, MaxItemsPath or `{% %}`: an integer
    items_pointer: str | None = None  # a JSON Pointer to the array inside a JSON object
    transformation: str = "NONE"  # NONE | LOAD_AND_FLATTEN (read the listed objects themselves)
    manifest_type: str | None = None  # ATHENA_DATA | S3_INVENTORY


class ItemReader(Struct, frozen=True):
    """A Distributed Map's `ItemReader`: the S3 call (`arn:aws:states:::s3:getObject`/`listObjectsV2`)
    whose answer holds the items, with its `Parameters`."""

    resource: str
    parameters: Expression | None = None
    reader_config: ReaderConfig = field(default_factory=ReaderConfig)


class ResultWriter(Struct, frozen=True):
    """A Distributed Map's `ResultWriter`: where the child executions' results go (`s3:putObject`
    with Bucket and Prefix in `Parameters`), and its `WriterConfig`. Without a Resource (only a
    WriterConfig) nothing is exported: the Map's result is the executions' results, transformed."""

    resource: str  # "" when only a WriterConfig is given
    parameters: Expression | None = None
    transformation: str | None = None  # WriterConfig.Transformation: NONE | COMPACT | FLATTEN
    output_type: str | None = None  # WriterConfig.OutputType: JSON | JSONL


class ItemBatcher(Struct, frozen=True):
    """A Distributed Map's `ItemBatcher`: each child execution gets `{"Items": [...], "BatchInput": ...}`,
    at most MaxItemsPerBatch items and the evaluated BatchInput."""

    max_items_per_batch: Expression | None = None  # MaxItemsPerBatch, MaxItemsPerBatchPath or `{% %}`
    max_input_bytes_per_batch: Expression | None = None  # MaxInputBytesPerBatch, ...Path or `{% %}`
    batch_input: Expression | None = None  # a payload template (JSONPath) or JSON with `{% %}` (JSONata)


class MapState(BaseState, frozen=True, kw_only=True):
    item_processor: StateMachine
    processor_mode: str = "INLINE"  # INLINE | DISTRIBUTED
    execution_type: str | None = None  # STANDARD | EXPRESS (distributed only)
    item_selector: Expression | None = None  # ItemSelector, or the older Parameters
    item_reader: ItemReader | None = None
    item_batcher: ItemBatcher | None = None
    result_writer: ResultWriter | None = None
    max_concurrency: Expression = Constant(0)  # MaxConcurrency, MaxConcurrencyPath or `{% %}`; 0: no limit
    tolerated_failure_percentage: Expression | None = None  # ...Percentage, ...PercentagePath or `{% %}`
    tolerated_failure_count: Expression | None = None  # ...Count, ...CountPath or `{% %}`
    label: str | None = None
    retry: tuple[Retrier, ...] = ()
    catch: tuple[Catcher, ...] = ()


State = Union[PassState, TaskState, ChoiceState, WaitState, SucceedState, FailState, ParallelState, MapState]


class StateMachine(Struct, frozen=True):
    """A whole definition, or one Parallel branch / Map item processor."""

    start_at: str
    states: Mapping[str, State]  # read-only (the parser gives a mappingproxy)
    query_language: str = JSONPATH
    timeout_seconds: int | None = None
    comment: str | None = None
    version: str | None = None
    # The author's definition as decoded: kept because a mock configuration's test case is checked against
    # the Task states the author wrote, nested ones included (`MockedResponses.start_problem`).
    # It is not part of what the model means: two spellings of one machine compare equal.
    raw: Mapping[str, JSON] = field(default_factory=dict)

    def __eq__(self, other: object) -> bool:
        if type(other) is not StateMachine:
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _MEANING_FIELDS)


_MEANING_FIELDS = tuple(name for name in StateMachine.__struct_fields__ if name != "raw")


def distributed_map_processors(machine: object) -> dict[str, StateMachine]:
    """The item processors of a machine's Distributed Map states at any depth, by label (the state's
    Label, else its name), the first in document order for a label: the state machine that
    `...:stateMachine:NAME/LABEL` names and a map run's child executions run. None for a definition
    of another language."""
    found: dict[str, StateMachine] = {}
    if not isinstance(machine, StateMachine):
        return found
    for state in machine.states.values():
        inner: tuple[StateMachine, ...] = ()
        if isinstance(state, MapState):
            if state.processor_mode == "DISTRIBUTED":
                found.setdefault(state.label or state.name, state.item_processor)
            inner = (state.item_processor,)
        elif isinstance(state, ParallelState):
            inner = state.branches
        for nested in inner:
            for label, processor in distributed_map_processors(nested).items():
                found.setdefault(label, processor)
    return found
