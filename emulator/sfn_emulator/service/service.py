"""`StepFunctionsService`: the control plane, composed of one component per group of operations over
a shared `Registry`, usable in-process (no HTTP) and behind the wire layer via `handle`."""

from __future__ import annotations

import random
import threading
from typing import Any, Callable

from botocore import xform_name

from sfn_emulator.engine import Engine
from sfn_emulator.engine.execution import Execution
from sfn_emulator.process.randomness import Randomness
from sfn_emulator.service.activities import Activities
from sfn_emulator.service.aliases import Aliases
from sfn_emulator.service.definitions import Definitions
from sfn_emulator.service.errors import UnknownOperationException
from sfn_emulator.service.execution_logs import ExecutionLogs
from sfn_emulator.service.executions import Executions
from sfn_emulator.service.logging_configuration import LogGroups
from sfn_emulator.service.map_runs import MapRuns
from sfn_emulator.service.mock_cases import MockCases, NoMockConfig
from sfn_emulator.service.observers import ServiceObserver
from sfn_emulator.service.operation_table import OPERATIONS
from sfn_emulator.service.registry import Registry
from sfn_emulator.service.state_machines import StateMachines
from sfn_emulator.service.store import Store
from sfn_emulator.service.tags import Tags
from sfn_emulator.service.tasks import TaskTokens
from sfn_emulator.service.versions import Versions

TEST_ENDED_CAUSE = "Stopped by sfn-emulator: the test that started it ended"
Operation = Callable[..., dict[str, Any]]


class StepFunctionsService:
    """AWS Step Functions' control plane over an `Engine`.

    Each operation is a method named after the botocore operation in snake_case
    (`create_state_machine`), taking the request members by their botocore names
    (`roleArn=...`) plus optional `account=` and `region=`; it returns the botocore output shape,
    timestamps as UTC `datetime`s from the engine's clock, and raises `ApiError`s with AWS's
    codes and messages. Each (account, region) has its own resources. The methods are the
    components' (`service.executions.start_execution`), reached from here by `OPERATIONS`.
    """

    def __init__(self, engine: Engine, registry: Registry | None = None, *, seed: int = 0,
                 mock_cases: MockCases | None = None, log_groups: LogGroups | None = None) -> None:
        """`registry`: the stores, default account and region and execution retention (default: a new
        one on the engine's clock); an engine that checks activities was given them over it
        (`RegisteredActivities`)."""
        self.registry = registry if registry is not None else Registry(engine.clock.now)
        ids = Randomness(f"{seed}:ids")  # execution names and ids, revision ids: from the seed
        execution_logs = ExecutionLogs(log_groups)  # where executions log, by their machine's configuration
        self.state_machines = StateMachines(self.registry, log_groups, ids)
        self.versions = Versions(self.registry)
        self.aliases = Aliases(self.registry)
        # Alias routing picks versions at random by weight; seeded, so runs are reproducible.
        self.executions = Executions(self.registry, engine, execution_logs,
                                     mock_cases if mock_cases is not None else NoMockConfig(), ids, random.Random(seed))
        self.activities = Activities(self.registry, engine)
        self.task_tokens = TaskTokens(self.registry, engine)
        self.tags = Tags(self.registry)
        self.map_runs = MapRuns(self.registry, engine)
        self.definitions = Definitions(self.registry, engine)
        self._operations: dict[str, Operation] = {
            xform_name(name): getattr(getattr(self, component), xform_name(name))
            for name, component in OPERATIONS.items()
        }
        engine.observe(execution_logs)  # executions log when they end
        engine.observe(self.map_runs)  # map runs and their children are filed as the engine starts them

    def observe(self, observer: ServiceObserver) -> None:
        """Tell `observer` of the control plane's changes from now on (for whoever composes the parts)."""
        self.registry.observers.add(observer)

    def handle(self, operation: str, params: dict[str, Any], *, account: str, region: str) -> dict[str, Any]:
        """Run `operation` (a botocore name such as "CreateStateMachine") with validated `params`."""
        if operation not in OPERATIONS:
            raise UnknownOperationException(f"Unknown operation: {operation}")
        return self._operations[xform_name(operation)](account=account, region=region, **params)

    def __getattr__(self, name: str) -> Operation:
        """An operation by its method name (`service.create_state_machine(...)`)."""
        operations = self.__dict__.get("_operations", {})
        if name not in operations:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return operations[name]

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *self._operations]

    # ------------------------------------------------------------------ for the emulator's own tools

    @property
    def default_account(self) -> str:
        return self.registry.default_account

    @property
    def default_region(self) -> str:
        return self.registry.default_region

    def start_nested_execution(self, params: dict[str, Any], *, parent_execution_arn: str, account: str,
                               region: str) -> dict[str, Any]:
        """StartExecution asked for by a task of `parent_execution_arn` (`ControlPlane`)."""
        return self.executions.start_nested_execution(params, parent_execution_arn=parent_execution_arn,
                                                      account=account, region=region)

    def execution_events(self, *, executionArn: str, account: str | None = None,
                         region: str | None = None) -> list[dict[str, Any]]:
        """Every history event of an execution, in order (in-process readers need no pages)."""
        return self.executions.execution_events(executionArn=executionArn, account=account, region=region)

    def execution_record(self, execution_arn: str) -> Execution:
        """The execution `execution_arn` names; ExecutionDoesNotExist if there is none."""
        return self.executions.record(execution_arn)

    def reset(self, account: str | None = None) -> None:
        """Forget every resource (of `account` only, when given): state machines, executions,
        activities. Running executions are aborted first, so nothing runs on for a forgotten record."""
        self.executions.abort_running(self.registry.remove(account), None)
        self.registry.observers.changed(None, "Reset", {"account": account}, None)

    def stop_running(self, account: str, cause: str = TEST_ENDED_CAUSE) -> list[str]:
        """Abort every running execution of `account` (in every region), as StopExecution with
        `cause` would, and answer their ARNs: what a test left running in its own account stops
        with it (the pytest plugin's isolation), its resources stay for the reports."""
        return self.executions.abort_running([store for store in self.registry.stores() if store.account == account],
                                             cause)

    @property
    def lock(self) -> threading.RLock:
        """The service lock: hold it to read stores consistently from outside an operation."""
        return self.registry.lock

    def store_of(self, account: str, region: str) -> Store:
        """The store of (account, region), made if new (persistence fills and reads stores through it)."""
        return self.registry.store(account, region)

    def install(self, stores: list[Store]) -> None:
        """Take loaded stores as the resources of their (account, region), replacing any there."""
        self.registry.install(stores)

    def stores(self) -> list[Store]:
        return self.registry.stores()

    def scopes(self) -> list[tuple[str, str]]:
        """Every (account, region) that has been used, sorted (the console shows them all)."""
        return self.registry.scopes()
