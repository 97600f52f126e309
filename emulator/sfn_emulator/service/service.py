"""`StepFunctionsService`: the control plane, one method per operation of botocore's
`stepfunctions` model, usable in-process (no HTTP) and behind the wire layer via `handle`."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from botocore import xform_name

from sfn_emulator.engine import Engine
from sfn_emulator.service.activities import ActivityOperations
from sfn_emulator.service.aliases import AliasOperations
from sfn_emulator.service.api_model import operation_names
from sfn_emulator.service.base import EXECUTION_RETENTION, MockCases
from sfn_emulator.service.definitions import DefinitionOperations
from sfn_emulator.service.errors import UnknownOperationException
from sfn_emulator.service.executions import ExecutionOperations
from sfn_emulator.service.logging_configuration import LogGroups
from sfn_emulator.service.map_runs import MapRunOperations
from sfn_emulator.service.state_machines import StateMachineOperations
from sfn_emulator.service.tags import TagOperations
from sfn_emulator.service.tasks import TaskOperations
from sfn_emulator.service.versions import VersionOperations



class StepFunctionsService(
    StateMachineOperations,
    VersionOperations,
    AliasOperations,
    ExecutionOperations,
    ActivityOperations,
    TaskOperations,
    TagOperations,
    MapRunOperations,
    DefinitionOperations,
):
    """AWS Step Functions' control plane over an `Engine`.

    Each operation is a method named after the botocore operation in snake_case
    (`create_state_machine`), taking the request members by their botocore names
    (`roleArn=...`) plus optional `account=` and `region=`; it returns the botocore output shape,
    timestamps as UTC `datetime`s from the engine's clock, and raises `ApiError`s with AWS's
    codes and messages. Each (account, region) has its own resources.
    """

    def __init__(self, engine: Engine, *, default_account: str = "123456789012",
                 default_region: str = "us-east-1", seed: int = 0,
                 execution_retention: timedelta | None = EXECUTION_RETENTION,
                 mock_cases: MockCases | None = None, log_groups: LogGroups | None = None) -> None:
        super().__init__(engine, default_account=default_account, default_region=default_region, seed=seed,
                         execution_retention=execution_retention, mock_cases=mock_cases, log_groups=log_groups)
        engine.activity_exists = self._activity_exists
        engine.observe(self)  # map runs and their children are filed as the engine starts them

    def handle(self, operation: str, params: dict[str, Any], *, account: str, region: str) -> dict[str, Any]:
        """Run `operation` (a botocore name such as "CreateStateMachine") with validated `params`."""
        if operation not in operation_names():
            raise UnknownOperationException(f"Unknown operation: {operation}")
        method = getattr(self, xform_name(operation))
        return method(account=account, region=region, **params)
