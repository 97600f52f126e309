"""How long an execution may run before it times out, by one rule for every way one starts.

A state machine's top-level `TimeoutSeconds` bounds its executions (ASL specification); an EXPRESS
execution is bounded by AWS's quota too: "Maximum execution duration: 5 minutes" (developer guide,
"Choosing workflow type", and the Express quotas). The quota holds however the execution started
(StartExecution, StartSyncExecution, a Distributed Map's EXPRESS child workflows, a nested
`states:startExecution` of an EXPRESS machine), and a shorter `TimeoutSeconds` still wins. Past the
limit the execution ends TIMED_OUT as any timed-out execution does (ExecutionTimedOut, no error or
cause), so StartSyncExecution answers `status: TIMED_OUT`.
"""

from __future__ import annotations

from sfn_emulator.engine.execution import Execution

EXPRESS = "EXPRESS"
EXPRESS_DURATION_LIMIT_SECONDS = 300


def run_time_limit_seconds(execution: Execution) -> float | None:
    """The seconds `execution` may run from its start date, or None when nothing bounds it."""
    timeout = execution.machine.timeout_seconds or None
    if execution.type != EXPRESS:
        return timeout
    return min(timeout, EXPRESS_DURATION_LIMIT_SECONDS) if timeout else EXPRESS_DURATION_LIMIT_SECONDS
