"""Map runs: DescribeMapRun, ListMapRuns, UpdateMapRun, and the records behind them.

Distributed Map states make map runs as they run; the engine announces each run and each of its
child executions, and this module files them in the store of the parent execution.
"""

from __future__ import annotations

from typing import Any

from sfn_emulator.engine.execution import RUNNING, Execution, MapRun
from sfn_emulator.engine.observers import EngineObserver
from sfn_emulator.service import arns
from sfn_emulator.service.engine_interfaces import MapRunSettings
from sfn_emulator.service.errors import (
    COMPLETED_MAP_RUN,
    MISSING_REQUIRED_PARAMETER,
    ExecutionDoesNotExist,
    ResourceNotFound,
    invalid_request,
)
from sfn_emulator.service.locking import operation, unlocked_operation
from sfn_emulator.service.pagination import paginate
from sfn_emulator.service.registry import Registry
from sfn_emulator.service.store import ExecutionEntry, Store


class MapRuns(EngineObserver):
    """The map run operations, and the filing of the map runs the engine announces."""

    def __init__(self, registry: Registry, settings: MapRunSettings) -> None:
        self.registry = registry
        self._settings = settings

    def _map_run(self, store: Store, map_run_arn: str) -> MapRun:
        """The map run, unless it or its parent execution (past its retention) is gone."""
        arns.map_run(map_run_arn)
        map_run = store.map_runs.get(map_run_arn)
        if map_run is None or self.registry.retained(store, map_run.execution_arn) is None:
            raise ResourceNotFound(f"Resource not found: '{map_run_arn}'", resource_name=map_run_arn)
        return map_run

    def map_run_began(self, map_run: MapRun) -> None:
        """Engine observer (`EngineObserver.map_run_began`): file a new map run with its parent execution."""
        parent = self._parent(map_run)
        if parent is not None:
            with self.registry.lock:
                parent[0].map_runs[map_run.arn] = map_run

    def map_run_child_started(self, child: Execution, map_run: MapRun) -> None:
        """Engine observer (`EngineObserver.map_run_child_started`): a map run's item started as `child`; it is describable like any execution."""
        parent = self._parent(map_run)
        if parent is not None:
            store, entry = parent
            with self.registry.lock:
                store.add_execution(ExecutionEntry(child, entry.revision, store.next_sequence(),
                                                   map_run_arn=map_run.arn))

    def _parent(self, map_run: MapRun) -> tuple[Store, ExecutionEntry] | None:
        for store in self.registry.stores():
            entry = store.executions.get(map_run.execution_arn)
            if entry is not None:
                return store, entry
        return None

    @operation
    def describe_map_run(self, store: Store, *, mapRunArn: str) -> dict[str, Any]:
        map_run = self._map_run(store, mapRunArn)
        described: dict[str, Any] = {
            "mapRunArn": map_run.arn,
            "executionArn": map_run.execution_arn,
            "status": map_run.status,
            "startDate": map_run.start_date,
            "maxConcurrency": map_run.max_concurrency,
            "toleratedFailurePercentage": map_run.tolerated_failure_percentage,
            "toleratedFailureCount": map_run.tolerated_failure_count,
            "itemCounts": map_run.counts(items=True),
            "executionCounts": map_run.counts(),
            "redriveCount": map_run.redrive_count,
        }
        if map_run.stop_date is not None:
            described["stopDate"] = map_run.stop_date
        return described

    @unlocked_operation
    def update_map_run(
        self,
        store: Store,
        *,
        mapRunArn: str,
        maxConcurrency: int | None = None,
        toleratedFailurePercentage: float | None = None,
        toleratedFailureCount: int | None = None,
    ) -> dict[str, Any]:
        with self.registry.locked(store):
            map_run = self._map_run(store, mapRunArn)
        if maxConcurrency is None and toleratedFailurePercentage is None and toleratedFailureCount is None:
            raise invalid_request("1 validation error detected: at least one of maxConcurrency, "
                                  "toleratedFailurePercentage or toleratedFailureCount must be given",
                                  MISSING_REQUIRED_PARAMETER)
        if map_run.status != RUNNING:  # a closed map run keeps the settings it ran with
            raise invalid_request(f"Map run '{mapRunArn}' has completed ({map_run.status}) and cannot be updated",
                                  COMPLETED_MAP_RUN)
        self._settings.update_map_run(map_run, max_concurrency=maxConcurrency,
                                      tolerated_failure_count=toleratedFailureCount,
                                      tolerated_failure_percentage=toleratedFailurePercentage)
        return {}

    @operation
    def list_map_runs(
        self, store: Store, *, executionArn: str, maxResults: int | None = None, nextToken: str | None = None
    ) -> dict[str, Any]:
        arns.execution(executionArn)
        if self.registry.retained(store, executionArn) is None:
            raise ExecutionDoesNotExist(f"Execution Does Not Exist: '{executionArn}'")
        started = [run for run in store.map_runs.values() if run.execution_arn == executionArn]  # in start order
        newest_first = [(-position, run) for position, run in reversed(list(enumerate(started)))]
        pairs, token = paginate(newest_first, lambda pair: pair[0], scope=f"mapRuns:{executionArn}",
                                max_results=maxResults, next_token=nextToken, now=self.registry.now())
        page = [run for _, run in pairs]
        items = []
        for run in page:
            item = {"executionArn": run.execution_arn, "mapRunArn": run.arn,
                    "stateMachineArn": run.state_machine_arn, "startDate": run.start_date}
            if run.stop_date is not None:
                item["stopDate"] = run.stop_date
            items.append(item)
        return {"mapRuns": items, **({"nextToken": token} if token else {})}
