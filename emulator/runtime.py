"""Assembles a running emulator from its settings: clock, engine, task resources, control plane and HTTP app.

`Emulator` is the whole emulator in-process; the CLI, the test fixtures and the pytest plugin build
one, and serve its `.app` with `sfn_emulator.wire.HttpServer` when they need HTTP.

Task resources answer a Task state in this order (the first that serves it wins):
1. the mock configuration (`--mock-config`), for executions started with `stateMachineArn#CASE`;
2. Python callables registered for Lambda functions (`--functions`, `sfn_emulator.functions.register`);
3. nested executions of this emulator (`arn:aws:states:::states:startExecution...`), and the other
   Step Functions actions through the AWS SDK integration (`arn:aws:states:::aws-sdk:sfn:*`);
4. AWS service integrations answered by moto's in-memory backends;
and otherwise a clear error naming the resource and how to map it.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from types import TracebackType

from flask import Flask

from sfn_emulator.clock import Clock
from sfn_emulator.config import Settings
from sfn_emulator.coverage import CoverageRecorder
from sfn_emulator.engine import Engine
from sfn_emulator.engine.execution import Execution
from sfn_emulator.resources.aws_services import AwsServiceIntegrations
from sfn_emulator.resources.base import TaskResource, TaskResources
from sfn_emulator.resources.lambda_functions import LambdaFunctions, load_function_map
from sfn_emulator.resources.mocks import MockConfig
from sfn_emulator.resources.nested_executions import StartExecution
from sfn_emulator.resources.sfn_sdk import StepFunctionsSdk
from sfn_emulator.service import StepFunctionsService
from sfn_emulator.wire import create_app
from sfn_emulator.wire.aws_passthrough import mount_aws_passthrough
from sfn_emulator.wire.clock_api import mount_clock_api
from sfn_emulator.wire.console_api import mount_console
from sfn_emulator.wire.insight_api import mount_insight_api


class Emulator:
    """One emulated Step Functions endpoint: `.clock`, `.engine`, `.service`, `.functions`, `.coverage`
    (of every execution it finished) and the WSGI `.app`."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.clock = Clock(mode=settings.clock, start=settings.clock_start, scale=settings.wait_time_scale)
        self.functions = LambdaFunctions(self.clock.now, default_timeout=settings.function_timeout)
        if settings.functions is not None:
            self.functions.update(load_function_map(settings.functions))
        self.mocks = MockConfig.load(settings.mock_config) if settings.mock_config is not None else None
        self.aws = AwsServiceIntegrations()
        self.engine = Engine(self.clock, skip_external_deadlines=settings.clock_skip_external_deadlines)
        retention = timedelta(days=settings.execution_retention_days) if settings.execution_retention_days else None
        self.service = StepFunctionsService(
            self.engine, default_account=settings.account, default_region=settings.region,
            execution_retention=retention,
        )
        self.service.mock_config_loaded = lambda: self.mocks is not None
        self._resources: list[TaskResource] = [self.functions, StartExecution(self.service),
                                                StepFunctionsSdk(self.service), self.aws]
        self.engine.resources = TaskResources(self._chain())
        self.engine.on_finished.append(self._forget_mocked_execution)
        self.coverage = CoverageRecorder()
        self.engine.on_finished.append(self.coverage.record)
        self.app: Flask = create_app(self.service, default_account=settings.account, default_region=settings.region)
        mount_clock_api(self.app, self.clock, self.engine)
        mount_insight_api(self.app, self.service, self.coverage)
        mount_console(self.app, self.service, self.engine, self.clock, self.coverage)
        mount_aws_passthrough(self.app, default_account=settings.account)

    def use_mock_config(self, path: str | Path | None) -> None:
        """Answer test cases from the mock configuration at `path` from now on (None: no mocks).

        A file that cannot be used raises `MockConfigError` and leaves the current one in place."""
        self.mocks = MockConfig.load(path) if path is not None else None
        self.engine.resources = TaskResources(self._chain())

    def _chain(self) -> list[TaskResource]:
        return ([self.mocks] if self.mocks is not None else []) + self._resources

    def _forget_mocked_execution(self, execution: Execution) -> None:
        if self.mocks is not None:
            self.mocks.forget_execution(execution.arn)

    def close(self) -> None:
        """Stop the engine's thread; running executions stop where they are."""
        self.engine.close()

    def __enter__(self) -> Emulator:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
