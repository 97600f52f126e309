"""What each operation component asks of the engine: the engine's entry points the control plane
alone calls, split by who calls them. `Engine` has all of them; a component is given it typed as
the one interface it needs, so what the service depends on is read here, not in the engine's
thirty-odd methods."""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from sfn_emulator.engine.execution import Execution, MapRun
from sfn_emulator.engine.scheduling.callbacks import ActivityTask


class ExecutionRunner(Protocol):
    """StartExecution, StartSyncExecution, StopExecution, RedriveExecution and the service's resets."""

    def starting(self) -> AbstractContextManager[datetime]: ...

    def start(self, execution: Execution) -> None: ...

    def wait(self, execution: Execution, timeout: float | None = None) -> bool: ...

    def stop(self, execution: Execution, error: str | None = None, cause: str | None = None) -> None: ...

    def stop_together(self, executions: list[Execution], error: str | None = None,
                      cause: str | None = None) -> None: ...

    def redrive(self, execution: Execution) -> None: ...


class ActivityQueues(Protocol):
    """GetActivityTask and DeleteActivity."""

    def poll_activity(self, activity_arn: str, worker_name: str | None,
                      timeout_seconds: float) -> ActivityTask | None: ...

    def forget_activity(self, activity_arn: str) -> None: ...


class TaskTokenAnswers(Protocol):
    """SendTaskSuccess, SendTaskFailure and SendTaskHeartbeat."""

    def task_token_execution(self, token: str) -> str | None: ...

    def check_task_token(self, token: str) -> None: ...

    def send_task_success(self, token: str, output: Any) -> None: ...

    def send_task_failure(self, token: str, error: str | None, cause: str | None) -> None: ...

    def send_task_heartbeat(self, token: str) -> None: ...


class MapRunSettings(Protocol):
    """UpdateMapRun."""

    def update_map_run(self, map_run: MapRun, *, max_concurrency: int | None = None,
                       tolerated_failure_count: int | None = None,
                       tolerated_failure_percentage: float | None = None) -> None: ...
