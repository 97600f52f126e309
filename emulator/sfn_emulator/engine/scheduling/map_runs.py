"""Map runs: a Distributed Map state's items, each run as a child execution with a history of its
own, at most MaxConcurrency at a time, until they are done or more fail than the state tolerates."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Callable

from msgspec import Struct

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.engine.effects import RunMapRun
from sfn_emulator.engine.execution import ABORTED, FAILED, RUNNING, SUCCEEDED, Execution, MapRun
from sfn_emulator.engine.frame import to_json_text
from sfn_emulator.engine.scheduling.fibers import Fiber, Fibers
from sfn_emulator.protocol.partitions import partition_for


class MapRunProgress(Struct, eq=False):
    """A map run in progress: the parent fiber waits for it."""

    fiber: Fiber
    effect: RunMapRun
    results: list[Any]
    owner: MapRuns
    next_index: int = 0
    running: int = 0
    finished: int = 0
    failed: int = 0
    closed: bool = False

    def cancel(self) -> None:
        self.owner.close(self, ABORTED)


class MapRuns:
    """Starts the child executions of map runs and follows them to the end. `start` and `abort` are
    the lifecycle's; `began` and `child_started` tell the control plane (DescribeMapRun, ListExecutions)."""

    def __init__(self, *, fibers: Fibers, now: Callable[[], datetime], start: Callable[[Execution], None],
                 abort: Callable[[Execution], None], began: Callable[[MapRun], None],
                 child_started: Callable[[Execution, MapRun], None]) -> None:
        self._fibers = fibers
        self._now = now
        self._start = start
        self._abort = abort
        self._began = began
        self._child_started = child_started
        self._children: dict[str, tuple[MapRunProgress, int]] = {}  # child execution ARN -> (run, item)

    def run(self, fiber: Fiber, effect: RunMapRun) -> None:
        progress = MapRunProgress(fiber, effect, results=[None] * len(effect.inputs), owner=self)
        fiber.waiting = progress
        self._began(effect.map_run)
        if not effect.inputs:
            self.close(progress, SUCCEEDED)
            self._fibers.resume(fiber, [])
            return
        self._start_children(progress)

    @staticmethod
    def _concurrency(progress: MapRunProgress) -> int:
        """How many children may run at once: the map run's MaxConcurrency as it is now (UpdateMapRun
        may change it while the run goes on), 0 meaning no limit."""
        return progress.effect.map_run.max_concurrency or len(progress.effect.inputs)

    def _start_children(self, progress: MapRunProgress) -> None:
        while progress.next_index < len(progress.effect.inputs) and progress.running < self._concurrency(progress):
            self._start_child(progress)

    def execution_closed(self, child: Execution) -> None:
        """An execution ended: if it is one of a map run's, the run goes on (or ends)."""
        if child.arn not in self._children:
            return
        progress, index = self._children.pop(child.arn)
        if progress.closed:
            return
        progress.running -= 1
        progress.finished += 1
        effect = progress.effect
        if child.status == SUCCEEDED:
            progress.results[index] = json.loads(child.output or "null")
        else:
            progress.failed += progress.effect.map_run.item_weight(index)
            if self._beyond_tolerance(progress):
                self.close(progress, FAILED)
                self._fibers.resume(progress.fiber, error=StatesError(
                    names.EXCEED_TOLERATED_FAILURE_THRESHOLD, "The specified tolerance threshold was exceeded"))
                return
        if progress.next_index < len(effect.inputs):
            self._start_children(progress)
        elif progress.finished == len(effect.inputs):
            self.close(progress, SUCCEEDED)
            self._fibers.resume(progress.fiber, progress.results)

    def update(self, map_run: MapRun, max_concurrency: int | None, tolerated_failure_count: int | None,
               tolerated_failure_percentage: float | None) -> None:
        """Apply UpdateMapRun's settings; a run in progress starts the children its new concurrency allows."""
        if max_concurrency is not None:
            map_run.max_concurrency = max_concurrency
        if tolerated_failure_count is not None:
            map_run.tolerated_failure_count = tolerated_failure_count
        if tolerated_failure_percentage is not None:
            map_run.tolerated_failure_percentage = tolerated_failure_percentage
        progress = next((progress for progress, _ in self._children.values() if progress.effect.map_run is map_run),
                        None)
        if progress is not None and not progress.closed:
            self._start_children(progress)

    def close(self, progress: MapRunProgress, status: str) -> None:
        """End the map run; children still running are aborted (the parent no longer waits for them)."""
        progress.closed = True
        map_run = progress.effect.map_run
        map_run.status, map_run.stop_date = status, self._now()
        for child in map_run.executions:
            if child.status == RUNNING:
                self._abort(child)

    def _start_child(self, progress: MapRunProgress) -> None:
        index = progress.next_index
        progress.next_index += 1
        progress.running += 1
        effect, parent = progress.effect, progress.fiber.run.execution
        name = progress.fiber.run.randomness.uuid()
        child = Execution(
            arn=f"arn:{partition_for(parent.region)}:states:{parent.region}:{parent.account}:execution:"
                f"{effect.map_run.state_machine_arn.rsplit(':', 1)[-1]}:{name}",
            name=name, state_machine_arn=effect.map_run.state_machine_arn,
            state_machine_name=effect.map_run.state_machine_arn.rsplit(":", 1)[-1],
            machine=effect.processor, definition=parent.definition, input=to_json_text(effect.inputs[index]),
            start_date=self._now(), account=parent.account, region=parent.region, role_arn=parent.role_arn,
            type=effect.execution_type, parent_execution_arn=parent.arn,
        )
        effect.map_run.executions.append(child)
        self._children[child.arn] = (progress, index)
        self._child_started(child, effect.map_run)
        self._start(child)

    @staticmethod
    def _beyond_tolerance(progress: MapRunProgress) -> bool:
        """AWS's rule (developer guide, "Tolerated failure threshold"): the run fails once its failed
        items (every item of a failed batch) exceed the tolerated count, or their share of all items
        the tolerated percentage; either bound is in force when the definition gave it or UpdateMapRun
        set it, and the map run's current values are the bounds."""
        effect, map_run = progress.effect, progress.effect.map_run
        count = map_run.tolerated_failure_count
        percentage = map_run.tolerated_failure_percentage
        count_given = effect.tolerated_failure_count is not None or count > 0
        percentage_given = effect.tolerated_failure_percentage is not None or percentage > 0
        if not count_given and not percentage_given:
            return True
        if count_given and progress.failed > count:
            return True
        total = map_run.counts(items=True)["total"]
        return percentage_given and progress.failed * 100 / total > percentage
