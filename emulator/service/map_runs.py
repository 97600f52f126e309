"""Map runs: DescribeMapRun, ListMapRuns, UpdateMapRun.

Map runs are made by Distributed Map states, which the engine does not run yet, so no map run
exists: the answers say so truthfully (an execution has none; a map run ARN names nothing).
"""

from __future__ import annotations

from typing import Any

from emulator.service import arns
from emulator.service.base import ServiceBase, operation
from emulator.service.errors import ExecutionDoesNotExist, ResourceNotFound
from emulator.service.pagination import paginate
from emulator.service.store import Store


def _no_such_map_run(map_run_arn: str) -> ResourceNotFound:
    arns.map_run(map_run_arn)
    return ResourceNotFound(f"Resource not found: '{map_run_arn}'")


class MapRunOperations(ServiceBase):
    @operation
    def describe_map_run(self, store: Store, *, mapRunArn: str) -> dict[str, Any]:
        raise _no_such_map_run(mapRunArn)

    @operation
    def update_map_run(
        self,
        store: Store,
        *,
        mapRunArn: str,
        maxConcurrency: int | None = None,
        toleratedFailurePercentage: float | None = None,
        toleratedFailureCount: int | None = None,
    ) -> dict[str, Any]:
        raise _no_such_map_run(mapRunArn)

    @operation
    def list_map_runs(
        self, store: Store, *, executionArn: str, maxResults: int | None = None, nextToken: str | None = None
    ) -> dict[str, Any]:
        arns.execution(executionArn)
        if executionArn not in store.executions:
            raise ExecutionDoesNotExist(f"Execution Does Not Exist: '{executionArn}'")
        no_map_runs: list[Any] = []
        page, _ = paginate(no_map_runs, lambda run: run, scope=f"mapRuns:{executionArn}",
                           max_results=maxResults, next_token=nextToken)
        return {"mapRuns": page}
