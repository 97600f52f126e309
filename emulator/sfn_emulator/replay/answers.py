"""The recording's answers as a task resource, first in the replay's chain: each Task attempt of the
replayed execution gets the answer recorded for the same place, state, visit and attempt, not the
next one in call order. Its answer is the whole task's (callbacks, `.sync` jobs and activity workers
are not waited for: the recording says how they ended).

A task the recording never ran is answered by the fallbacks given (a mock test case, callables), or
fails with States.Runtime ("no recorded answer for state X"), which no Catch or Retry takes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.replay.comparison import same_value
from sfn_emulator.replay.recording import Answer, AnswerKey, Place
from sfn_emulator.resources.base import TaskRequest, TaskResource
from sfn_emulator.resources.outcomes import BoundCall, WallDeadline, typed_answer, whole_task_answer, whole_task_call

JSON = Any


class RecordedAnswers:
    """Answers every Task request of the replay's emulator: those of the state machine `machine_name`
    from `answers`, the others (a Distributed Map's child executions, whose Tasks the parent's history
    does not hold) from the fallbacks only. Thread-safe."""

    def __init__(self, answers: Mapping[AnswerKey, Answer], definition: Mapping[str, Any], machine_name: str, *,
                 fallbacks: Sequence[TaskResource] = (), stop_at_divergence: Callable[[str], None] | None = None) -> None:
        self._answers = answers
        self._definition = definition
        self._machine_name = machine_name
        self._fallbacks = fallbacks
        self._stop = stop_at_divergence
        self._visits: dict[tuple[Place, str], int] = {}
        self._lock = threading.Lock()
        self.task_tokens: set[str] = set()  # the replay's own tokens: they differ from the recording's by nature
        self.unanswered: list[str] = []  # why tasks got no recorded answer, in order

    def bind(self, request: TaskRequest) -> BoundCall:
        """The recorded answer's call; else the first fallback's, taken as the whole task's answer (its
        wall deadline kept: a callable's timeout still ends it); else a call that fails."""
        key = self._key(request)
        if request.task_token is not None:
            with self._lock:
                self.task_tokens.add(request.task_token)
        answer = self._answers.get(key) if request.state_machine_name == self._machine_name else None
        if answer is not None:
            return whole_task_call(request, lambda: self._recorded(request, key, answer))
        for fallback in self._fallbacks:
            call = fallback.bind(request)
            if call is not None:
                return _whole_task_fallback(request, call)
        return whole_task_call(request, lambda: self._without_answer(request, key))

    def _recorded(self, request: TaskRequest, key: AnswerKey, answer: Answer) -> JSON:
        if self._stop is not None and not same_value(request.payload, answer.parameters, self.task_tokens):
            self._stop(f"the replay called state {key.state!r} with other parameters than the recording "
                       f"(recorded event {answer.scheduled_event_id})")
        if answer.failed:
            raise StatesError(answer.error or names.TASK_FAILED, answer.cause)
        return answer.result

    def _without_answer(self, request: TaskRequest, key: AnswerKey) -> JSON:
        where = "".join(f" in {name} {'iteration' if isinstance(index, int) else 'branch'} {index}"
                        for name, index in key.place)
        visit = f", entry {key.visit}" if key.visit > 1 else ""
        why = ("the recording never ran it" if request.state_machine_name == self._machine_name
               else "it runs in a Distributed Map child execution, which the parent's history does not hold")
        problem = (f"no recorded answer for state {key.state!r}{where} (attempt {key.attempt}{visit}): {why}; "
                   "give a mock for it (--mock-config FILE --test-case NAME, or a callable)")
        with self._lock:
            self.unanswered.append(problem)
        if self._stop is not None:
            self._stop(problem)
        raise StatesError(names.RUNTIME, problem)

    def _key(self, request: TaskRequest) -> AnswerKey:
        """The request's place, state, visit (a first attempt starts the next one) and attempt."""
        place = named_place(self._definition, request.place)
        with self._lock:
            visit = self._visits.get((place, request.state_name), 0) + (request.attempt == 0)
            self._visits[(place, request.state_name)] = visit
        return AnswerKey(place, request.state_name, max(visit, 1), request.attempt)


def _whole_task_fallback(request: TaskRequest, call: BoundCall) -> BoundCall:
    """A fallback's call, its answer (also the one its deadline gives) taken as the whole task's."""
    bound = call.deadline
    deadline = None if bound is None else WallDeadline(
        bound.seconds, lambda: typed_answer(request, lambda: whole_task_answer(bound.outcome())))
    return whole_task_call(request, lambda: whole_task_answer(call.invoke()), deadline)


def named_place(definition: Mapping[str, Any], place: Sequence[tuple[str, int]]) -> Place:
    """A request's place with each Parallel branch named by its first state, as a history names it."""
    named: list[tuple[str, int | str]] = []
    machine: Any = definition
    for state_name, index in place:
        state = ((machine or {}).get("States") or {}).get(state_name) if isinstance(machine, Mapping) else None
        state = state if isinstance(state, Mapping) else {}
        if state.get("Type") == "Parallel":
            branches = state.get("Branches") or []
            machine = branches[index] if index < len(branches) else {}
            named.append((state_name, str((machine or {}).get("StartAt", index))))
        else:
            machine = state.get("ItemProcessor") or state.get("Iterator") or {}
            named.append((state_name, index))
    return tuple(named)

