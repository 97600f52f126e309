"""What a server says it does, at INFO: one line when an execution starts and one when it ends (name,
state machine, status, its duration on the emulator's clock). Each API call is logged at DEBUG by
the endpoint that answers it (`sfn_emulator.wire.app`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from sfn_emulator.engine.observers import EngineObserver
from sfn_emulator.service.observers import ServiceObserver

if TYPE_CHECKING:
    from sfn_emulator.engine import Engine
    from sfn_emulator.engine.execution import Execution
    from sfn_emulator.service import StepFunctionsService
    from sfn_emulator.service.store import Store

logger = logging.getLogger("sfn_emulator.executions")
_STARTS = ("StartExecution", "StartSyncExecution")


def log_executions(service: StepFunctionsService, engine: Engine) -> None:
    """Log each execution's start and end from now on."""
    log = ExecutionLog()
    service.observe(log)
    engine.observe(log)


class ExecutionLog(EngineObserver, ServiceObserver):
    """One INFO line when an execution starts (the control plane's answer) and one when it ends."""

    def changed(self, store: Store | None, action: str, params: dict[str, Any], result: Any) -> None:
        if action in _STARTS and isinstance(result, dict) and logger.isEnabledFor(logging.INFO):
            logger.info("execution started: %s of %s", result.get("executionArn", "?").rsplit(":", 1)[-1],
                        params.get("stateMachineArn"))

    def execution_finished(self, execution: Execution) -> None:
        if logger.isEnabledFor(logging.INFO):
            took = (execution.stop_date - execution.start_date).total_seconds() if execution.stop_date else 0.0
            logger.info("execution ended: %s of %s: %s after %.3f s on the clock", execution.name,
                        execution.state_machine_arn, execution.status, took)
