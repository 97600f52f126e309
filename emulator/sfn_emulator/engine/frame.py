"""Where an interpreter is: the execution it belongs to (`Run`) and its own branch (`Frame`).

`Frame.emit` appends AWS history events (built by `sfn_emulator.protocol.history_events`) through
the run's writer (`engine.scheduling.history_writer`). Each event's ``previousEventId`` is the last
event of the same branch, so events of Parallel branches and Map iterations link back through their
own branch, as in AWS's histories (checked against every history AWS recorded for the conformance
cases, LocalStack's AWS-validated snapshots): the first state's entered event links to no event
(0); a few bookkeeping events (`MapIterationSucceeded`/`Failed`/`Aborted`, `TaskStateAborted`,
`MapStateSucceeded`) link back but are not linked to (`advance=False`), so what follows a Map
iteration, a failed branch or a Map links to the last event of the work itself.

A `Frame` is also the `ExpressionScope` expressions read: the Context Object (built only when a `$$` path
asks for it) and workflow variables.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.clock.virtual_clock import format_time
from sfn_emulator.engine.execution import Execution
from sfn_emulator.engine.scheduling.history_writer import HistoryWriter
from sfn_emulator.engine.variables import Variables
from sfn_emulator.process.randomness import Randomness
from sfn_emulator.protocol.history_events import EventBody
from sfn_emulator.resources.base import TaskResources

if TYPE_CHECKING:
    from sfn_emulator.engine.effects import Interpreter

JSON = Any


def to_json_text(value: JSON) -> str:
    """JSON text as AWS writes payloads: compact, non-ASCII kept."""
    return compact_json(value)


class Run:
    """One execution's shared interpreter state."""

    __slots__ = ("execution", "now", "history", "_seed", "_random", "_randomness", "execution_context", "state_machine_context", "restart_point",
                 "top_frame",
                 "resources", "item_reader_data", "on_timeout", "_last_payload")

    def __init__(self, execution: Execution, now: Callable[[], datetime], seed: str | None = None) -> None:
        self.execution = execution
        self.now = now
        self.history = HistoryWriter(execution, now)
        self._seed = seed if seed is not None else execution.arn
        self._random: random.Random | None = None
        self._randomness: Randomness | None = None
        self.restart_point: tuple[str, JSON] | None = None  # the top-level state to redrive from
        self.top_frame: Frame | None = None  # the top level's frame: its variables and task token (kept by a store)
        self.resources: TaskResources | None = None  # a chain of this run's own (TestState mocks), else the engine's
        self.item_reader_data: str | None = None  # the source a Map's ItemReader reads, as text (TestState's mapItemReaderData)
        # what runs when the execution's timeout passes, before it ends as timed out (a dialect's
        # timeout action: SM4C's `timeout.action`); None: it ends at once
        self.on_timeout: Callable[[], Interpreter] | None = None
        self.execution_context = {
            "Id": execution.arn,
            "Input": execution.input_value(),
            "Name": execution.name,
            "RoleArn": execution.role_arn,
            "StartTime": format_time(execution.start_date),
            "RedriveCount": execution.redrive_count,
        }
        if execution.redrive_date is not None:  # AWS: "only available if you've redriven an execution"
            self.execution_context["RedriveTime"] = format_time(execution.redrive_date)
        self.state_machine_context = {"Id": execution.state_machine_arn, "Name": execution.state_machine_name}
        self._last_payload: tuple[JSON, str] | None = None

    @property
    def random(self) -> random.Random:
        """JitterStrategy FULL's randomness, reproducible per execution; seeded when first used
        (seeding takes longer than running a small execution)."""
        if self._random is None:
            self._random = random.Random(self._seed)
        return self._random

    @property
    def randomness(self) -> Randomness:
        """Ids and random values the execution draws (task tokens, map run ids, `States.UUID`, ...),
        reproducible from the engine's seed; apart from the jitter generator, so drawing an id
        never changes a retry's delay."""
        if self._randomness is None:
            self._randomness = Randomness(f"{self._seed}:ids")
        return self._randomness

    def request_seed(self) -> str:
        """The seed of the ids a task request made now draws in its answer (`TaskRequest.seed`):
        the execution's, and the request's place in its history."""
        return f"{self._seed}:request:{len(self.execution.history)}"

    def payload_text(self, value: JSON, known: str | None = None) -> str:
        """A state's input or output as history text. The output one state exits with is most often
        the very input the next enters with: it is serialised once and both events share the text.
        (JSON values are never changed in place, so the same object has the same text.) `known`:
        its text, when the caller has serialised it already (to measure it)."""
        last = self._last_payload
        if last is not None and last[0] is value:
            return last[1]
        text = known if known is not None else to_json_text(value)
        if isinstance(value, (dict, list)):
            self._last_payload = (value, text)
        return text


class Frame:
    """One line of control: the top level of an execution, a Parallel branch or a Map iteration."""

    __slots__ = (
        "run", "prev_event_id", "state_name", "entered_time", "entered_event_id", "retry_count", "counts_retries",
        "map_item", "task_token", "nested", "interleave", "inspection", "variables", "assigned", "resumed_entry",
        "resumed_token", "resumed_attempt", "place",
    )

    def __init__(self, run: Run, prev_event_id: int, *, nested: bool = False, interleave: bool = False,
                 map_item: tuple[int, JSON] | None = None, variables: Variables | None = None,
                 place: tuple[tuple[str, int], ...] = ()) -> None:
        self.run = run
        self.prev_event_id = prev_event_id
        self.state_name = ""
        self.entered_time: datetime | None = None
        self.entered_event_id = 0
        self.retry_count = 0
        # `$$.State.RetryCount` exists only in states that can retry (Task, Parallel, Map), as recorded.
        self.counts_retries = True
        self.map_item = map_item
        self.task_token: str | None = None
        self.nested = nested  # inside a Parallel branch or a Map iteration
        self.interleave = interleave  # take turns with sibling branches, state by state
        self.inspection: dict[str, str] | None = None  # TestState: each data-flow step, as JSON text
        self.variables = variables if variables is not None else Variables()
        # What the running state's Assign evaluated to: bound when the state exits, so that its
        # Output (or OutputPath) still reads the values from before the state.
        self.assigned: dict[str, JSON] | None = None
        # (event id, time) of the …StateEntered event of the state the frame resumes in, already in
        # the history (an execution continued after a restart): that state is not entered again.
        self.resumed_entry: tuple[int, datetime] | None = None
        self.resumed_token: str | None = None  # the task token its Task gave out before the restart: kept
        # The history events of its Task's attempt under way at the restart (`resumed_attempt`): what
        # was recorded is not recorded again, nor what was sent sent again.
        self.resumed_attempt: dict[str, Any] | None = None
        # Where the frame is: (Parallel or Map state, branch or iteration index) from the top level down;
        # a task request carries it, so an answer can be matched to the branch or iteration that asked.
        self.place = place

    def inspect(self, step: str, value: JSON) -> None:
        if self.inspection is not None:
            self.inspection[step] = to_json_text(value)

    def inspect_http(self, exchange: Any) -> None:
        """Report an HTTP Task's request and response (TestState's TRACE level); nothing otherwise."""

    def child(self, *, interleave: bool = False, map_item: tuple[int, JSON] | None = None,
              place: tuple[str, int] | None = None) -> Frame:
        """A Parallel branch's or a Map iteration's frame; `place`: (its state's name, branch or iteration index)."""
        return Frame(self.run, self.prev_event_id, nested=True, interleave=interleave, map_item=map_item,
                     variables=self.variables.inner(), place=self.place + (place,) if place else self.place)

    def emit(self, event: EventBody, *, timestamp: datetime | None = None, previous: int | None = None,
             advance: bool = True) -> int:
        """Append an event linked to this line's last one (or to `previous`); unless `advance` is
        False, it becomes the event the line's next one links to."""
        event_id = self.run.history.append(event, previous if previous is not None else self.prev_event_id,
                                           timestamp=timestamp)
        if advance:
            self.prev_event_id = event_id
        return event_id

    # -- ExpressionScope -----------------------------------------------------------------------
    @property
    def context_object(self) -> dict[str, JSON]:
        state: dict[str, JSON] = {
            "EnteredTime": format_time(self.entered_time) if self.entered_time else None,
            "Name": self.state_name,
        }
        if self.counts_retries:
            state["RetryCount"] = self.retry_count
        context: dict[str, JSON] = {
            "Execution": self.run.execution_context,
            "State": state,
            "StateMachine": self.run.state_machine_context,
        }
        if self.task_token is not None:
            context["Task"] = {"Token": self.task_token}
        if self.map_item is not None:
            context["Map"] = {"Item": {"Index": self.map_item[0], "Value": self.map_item[1]}}
        return context

    def variable(self, name: str) -> JSON:
        return self.variables.get(name)

    def visible_variables(self) -> dict[str, JSON]:
        return self.variables.visible()

    def now(self) -> datetime:
        return self.run.now()

    @property
    def randomness(self) -> Randomness:
        return self.run.randomness
