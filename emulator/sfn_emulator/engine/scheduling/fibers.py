"""Fibers: every running interpreter (an execution's top level, a Parallel branch, a Map iteration)
and the run queue that steps them.

Executions take turns, round robin. A turn runs one execution's ready fibers for at most
`TURN_BUDGET` steps (the interpreter yields a `EnterState` before every state, so a loop with no
Wait is a run of steps too); turns follow each other for at most `SLICE_SECONDS` of wall time, and
then the engine serves commands and timers. A fiber whose turn ends on a `EnterState` goes first
again at its execution's next turn, so an execution's history is the same however many others run
beside it and wherever its turns end. Forks (Parallel, inline Map) and their joins live here too.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Any, Callable, Protocol

from msgspec import Struct, field

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.clock.virtual_clock import wall_monotonic
from sfn_emulator.engine.effects import Aborted, Effect, Fork, Interpreter, Reschedule, EnterState
from sfn_emulator.engine.frame import Run
from sfn_emulator.engine.scheduling.history_writer import HistoryLimitReached

log = logging.getLogger(__name__)

TURN_BUDGET = 200  # steps of one execution before the next execution gets its turn
SLICE_SECONDS = 0.02  # wall time of turns before commands and timers are served again


class Waiting(Protocol):
    """What a blocked fiber waits on (a timer, a task, a token, a map run...)."""

    def cancel(self) -> None:
        """The fiber is cancelled: let go of whatever the wait holds."""


class Endings(Protocol):
    """Who hears how an execution's top-level fiber ends: the executions' lifecycle, which itself
    resumes and cancels fibers, so it is handed to `Fibers` once both exist (`report_endings_to`)."""

    def ended(self, fiber: Fiber, result: Any, error: StatesError | None) -> None:
        """The top-level fiber returned `result` or raised `error`."""

    def history_full(self, fiber: Fiber) -> None:
        """A fiber of the execution wrote AWS's last allowed history event."""


class _NoEndings:
    """`Fibers` before the lifecycle is handed to it: no execution can have started yet."""

    def ended(self, fiber: Fiber, result: Any, error: StatesError | None) -> None:
        raise RuntimeError("no lifecycle hears of the fibers' ends")

    def history_full(self, fiber: Fiber) -> None:
        raise RuntimeError("no lifecycle hears of the fibers' ends")


class Fiber(Struct, eq=False):
    """One running interpreter: an execution's top level, a Parallel branch or a Map iteration."""

    gen: Interpreter
    run: Run
    join: Join | None = None  # the Fork this fiber is a child of
    on_done: Callable[[Any, StatesError | None], None] | None = None  # instead of closing an execution
    waiting: Waiting | Join | None = None  # what it is blocked on (None while it is ready or running)
    done: bool = False


class Join(Struct, eq=False):
    """A Fork in progress: the parent fiber waits for its children."""

    parent: Fiber
    factories: list[Callable[[], Interpreter]]
    max_concurrency: int
    interleave: bool
    results: list[Any]
    running: dict[Fiber, int] = field(default_factory=dict)
    next_index: int = 0
    remaining: int = 0
    failed: bool = False
    needed: int | None = None  # succeed once this many children have


Ready = deque[tuple[Fiber, Any, BaseException | None]]


class Fibers:
    """Steps interpreters. Effects other than `EnterState`, `Reschedule` and `Fork` go to `dispatch`;
    a top-level fiber's end and a full history go to the `Endings` (the executions' lifecycle)."""

    def __init__(self, *, dispatch: Callable[[Fiber, Effect], None]) -> None:
        self._dispatch = dispatch
        self._endings: Endings = _NoEndings()
        self._ready: dict[Run, Ready] = {}  # per execution, in order
        self._turns: deque[Run] = deque()  # executions with ready fibers, in the order they get their turn

    def report_endings_to(self, endings: Endings) -> None:
        """Tell `endings` how top-level fibers end from now on: once, when whoever composes the
        engine has built the lifecycle over these fibers."""
        self._endings = endings

    @property
    def runnable(self) -> bool:
        return bool(self._turns)

    def resume(self, fiber: Fiber, value: Any = None, error: BaseException | None = None) -> None:
        """Queue the fiber to go on with `value` (or with `error` thrown into it)."""
        self._queue(fiber.run).append((fiber, value, error))

    def run_turns(self) -> None:
        """Give executions with ready fibers their turns, round robin, until the slice is spent."""
        deadline = wall_monotonic() + SLICE_SECONDS
        while self._turns and wall_monotonic() < deadline:
            self._run_turn(self._turns.popleft(), deadline)

    def cancel(self, fiber: Fiber, *, aborting: bool) -> None:
        """Stop a fiber and everything below it; `aborting` emits AWS's ...Aborted events on the way."""
        if fiber.done:
            return
        fiber.done = True
        waiting = fiber.waiting
        if isinstance(waiting, Join):
            waiting.failed = True
            for child in list(waiting.running):
                self.cancel(child, aborting=aborting)
            waiting.running.clear()
        elif waiting is not None:
            waiting.cancel()
        try:
            if aborting:
                fiber.gen.throw(Aborted())
        except (Aborted, StopIteration, StatesError, HistoryLimitReached):
            pass
        except Exception:  # aborting must finish whatever the generator does
            log.exception("error while aborting %s", fiber.run.execution.arn)
        fiber.gen.close()

    # -- stepping ------------------------------------------------------------------------------
    def _queue(self, run: Run) -> Ready:
        ready = self._ready.get(run)
        if ready is None:
            ready = self._ready[run] = deque()
            self._turns.append(run)
        return ready

    def _run_turn(self, run: Run, deadline: float) -> None:
        """Step the ready fibers of one execution until none is left, the budget or the slice is spent."""
        ready = self._ready[run]
        steps = 0
        while ready and steps < TURN_BUDGET:
            fiber, value, error = ready.popleft()
            if not fiber.done:
                self._step(fiber, value, error)
                steps += 1
                if wall_monotonic() >= deadline:
                    break
        if ready:
            self._turns.append(run)
        else:
            del self._ready[run]

    def _step(self, fiber: Fiber, value: Any, error: BaseException | None) -> None:
        fiber.waiting = None
        try:
            effect = fiber.gen.throw(error) if error is not None else fiber.gen.send(value)
        except StopIteration as stop:
            self._finished(fiber, stop.value, None)
        except StatesError as failure:
            self._finished(fiber, None, failure)
        except HistoryLimitReached:
            self._endings.history_full(fiber)
        except Exception as exc:  # an emulator bug: fail this execution only, and say so
            log.exception("interpreter error in %s", fiber.run.execution.arn)
            self._finished(fiber, None, StatesError(names.RUNTIME, f"sfn-emulator internal error: {type(exc).__name__}: {exc}"))
        else:
            if isinstance(effect, EnterState):
                self._queue(fiber.run).appendleft((fiber, None, None))  # before anything else of its execution
            elif isinstance(effect, Reschedule):
                self.resume(fiber)
            elif isinstance(effect, Fork):
                self._fork(fiber, effect)
            else:
                self._dispatch(fiber, effect)

    def _finished(self, fiber: Fiber, result: Any, error: StatesError | None) -> None:
        fiber.done = True
        join = fiber.join
        if fiber.on_done is not None:
            fiber.on_done(result, error)
            return
        if join is None:
            self._endings.ended(fiber, result, error)
            return
        index = join.running.pop(fiber, None)
        if join.failed or index is None:
            return
        if error is not None:
            join.failed = True
            for sibling in list(join.running):
                self.cancel(sibling, aborting=True)
            join.running.clear()
            self.resume(join.parent, error=error)
            return
        join.results[index] = result
        join.remaining -= 1
        if join.needed is not None and len(join.factories) - join.remaining >= join.needed:
            join.failed = True  # settled: siblings still running end without a say
            for sibling in list(join.running):
                self.cancel(sibling, aborting=True)
            join.running.clear()
            self.resume(join.parent, join.results)
        elif join.next_index < len(join.factories):
            self._start_child(join)
        elif join.remaining == 0:
            self.resume(join.parent, join.results)

    # -- forks ---------------------------------------------------------------------------------
    def _fork(self, fiber: Fiber, effect: Fork) -> None:
        join = Join(fiber, list(effect.children), effect.max_concurrency, effect.interleave,
                    results=[None] * len(effect.children), remaining=len(effect.children), needed=effect.needed)
        fiber.waiting = join
        if not join.factories:
            self.resume(fiber, [])
            return
        limit = join.max_concurrency or len(join.factories)
        while join.next_index < min(limit, len(join.factories)):
            self._start_child(join)

    def _start_child(self, join: Join) -> None:
        index = join.next_index
        join.next_index += 1
        parent = join.parent
        child = Fiber(join.factories[index](), parent.run, join=join)
        join.running[child] = index
        self.resume(child)
