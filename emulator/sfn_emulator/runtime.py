"""Assembles a running emulator from its settings: clock, engine, task resources, control plane and HTTP app.

`Emulator` is the whole emulator in-process; the CLI, the test fixtures and the pytest plugin build
one, and serve its `.server_app` (or `.app`) with `sfn_emulator.wire.HttpServer` when they need HTTP.

This is the composition root: the one place the core (wire, service, engine, ASL, clock, task
resources) meets the extensions around it, which the core never imports (an import-linter contract).
Each extension plugs in through one small interface, given by constructor or registered once here:
- an engine observer (`engine.observers.EngineObserver`): coverage, the mock cases, the local
  EventBridge's status events, persistence's recorder (with `service.observers.ServiceObserver`);
- a second AWS API on the endpoint (`wire.app.ApiExtension`, by botocore model name): Amazon SWF,
  made on its first request;
- HTTP routes (`mount_*(app, ...)` on the Flask app): the web console and its test-case download;
- a dialect (`dialects.Dialect`): found by the dialect registry in the entry point group
  `sfn_emulator.dialects` (Serverless Workflow, SM4C, and those of other distributions);
- a state directory (`persistence.StateDirectory`), attached when `--state-dir` is given.

Task resources answer a Task state in this order (the first that serves it wins):
1. in a replay's emulator, the recording's answers (`answer_tasks_with`), which answer every Task;
2. the mock configuration (`--mock-config`), for executions started with `stateMachineArn#CASE`;
3. Python callables registered for Lambda functions (`--functions`, `sfn_emulator.functions.register`);
4. the real endpoints of services given one (`--lambda-endpoint`, `SQS_ENDPOINT`, ...: see
   `sfn_emulator.resources.remote_endpoints`), for every integration of those services;
5. nested executions of this emulator (`arn:aws:states:::states:startExecution...`), and the other
   Step Functions actions through the AWS SDK integration (`arn:aws:states:::aws-sdk:sfn:*`);
6. the HTTP Task (`arn:aws:states:::http:invoke`), real HTTP requests (`sfn_emulator.resources.http_task`);
7. AWS service integrations answered by moto's in-memory backends (and the `.sync` jobs of Athena, Glue,
   Batch, CodeBuild and ECS started there: `sfn_emulator.resources.aws_jobs`);
and otherwise a clear error naming the resource and how to map it. The chain is built before the
engine, which takes it by constructor; the slots of 1 and 2 change what they hold, not the chain.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from datetime import timedelta
from functools import cached_property, partial
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar, cast

import msgspec

from sfn_emulator.process import long_lived
from sfn_emulator.clock.virtual_clock import Clock
from sfn_emulator.config import Settings
from sfn_emulator import dialects
from sfn_emulator.dialects import local_files
from sfn_emulator.coverage.recorder import CoverageRecorder
from sfn_emulator.engine import Engine
from sfn_emulator.engine.event_bus import EventBus
from sfn_emulator.engine.observers import EngineObserver
from sfn_emulator.engine.execution import Execution
from sfn_emulator.eventbridge import EventBridge
from sfn_emulator.process.randomness import Randomness, process_seed
from sfn_emulator.resources.aws.cloudwatch_logs import CloudWatchLogGroups
from sfn_emulator.resources.aws.reset import reset_moto_backends
from sfn_emulator.resources.aws_jobs import AwsJobs
from sfn_emulator.resources.base import TaskRequest, TaskResource, TaskResources
from sfn_emulator.resources.control_plane import ControlPlane
from sfn_emulator.resources.function_map import load_function_map
from sfn_emulator.resources.http_task import HttpTask
from sfn_emulator.resources.lambda_functions import LambdaFunctions
from sfn_emulator.resources.nested_executions import StartExecution
from sfn_emulator.resources.outcomes import BoundCall
from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.activities import RegisteredActivities
from sfn_emulator.service.registry import Registry

if TYPE_CHECKING:
    from flask import Flask

    from sfn_emulator.persistence import StateDirectory
    from sfn_emulator.replay import ReplayResult
    from sfn_emulator.resources.mocks import MockConfig
    from sfn_emulator.stacks import Stack
    from sfn_emulator.swf import SwfService
    from sfn_emulator.wire.app import ApiExtension, JsonProtocolEndpoint
    from sfn_emulator.wire.front import Front

T = TypeVar("T")


class _OnFirstUse(Generic[T]):
    """A part made, and its modules imported, the first time it is asked for (`_get`), once whatever
    the threads; `built` is it if made by now. `kept_for_life`: what its build loaded stays out of the
    garbage collector's full passes (`process.long_lived`)."""

    def __init__(self, build: Callable[[], T], *, kept_for_life: bool = False) -> None:
        self._build = build
        self._kept_for_life = kept_for_life
        self.built: T | None = None
        self._lock = threading.Lock()

    def _get(self) -> T:
        if self.built is None:
            with self._lock:
                if self.built is None:
                    self.built = self._build()
                    if self._kept_for_life:
                        long_lived.loaded()
        return self.built


class _BuiltOnFirstUse(_OnFirstUse[TaskResource]):
    """A task resource made the first time a Task reaches it: the AWS integrations bring botocore's
    service models and moto, which most runs never call (kept for the process's life once loaded)."""

    def __init__(self, build: Callable[[], TaskResource]) -> None:
        super().__init__(build, kept_for_life=True)

    @property
    def resource(self) -> TaskResource:
        return self._get()

    def bind(self, request: TaskRequest) -> BoundCall | None:
        return self._get().bind(request)


class _ApiOnFirstRequest(_OnFirstUse["ApiExtension"]):
    """An extension's AWS API (`wire.app.ApiExtension`) as the HTTP endpoint sees it: made, and its
    package imported, on its first request (or when the emulator is asked for it)."""

    @property
    def api(self) -> ApiExtension:
        return self._get()

    def handle(self, operation: str, params: dict[str, Any], *, account: str, region: str) -> dict[str, Any]:
        return self._get().handle(operation, params, account=account, region=region)


class _CurrentMocks(EngineObserver):
    """The mock configuration in use, whichever is loaded now (`use_mock_config` replaces it): the
    first task resource of the chain, the control plane's view of the test cases, and, told of
    finished executions, what forgets their test cases."""

    def __init__(self, config: MockConfig | None) -> None:
        self._config = config

    @property
    def config(self) -> MockConfig | None:
        return self._config

    def use(self, config: MockConfig | None) -> None:
        """Answer from `config` from now on (None: no mocks)."""
        self._config = config

    def loaded(self) -> bool:
        return self._config is not None

    def start_problem(self, machine: str, case: str, definition: Any) -> str | None:
        config = self._config
        return config.start_problem(machine, case, definition) if config is not None else None

    def bind(self, request: TaskRequest) -> BoundCall | None:
        config = self._config
        return config.bind(request) if config is not None else None

    def execution_finished(self, execution: Execution) -> None:
        config = self._config
        if config is not None:
            config.forget_execution(execution.arn)


class _AnswersFirst:
    """The first task resource of the chain: what answers Tasks before every other resource when set
    (`Emulator.answer_tasks_with`: a replay's recorded answers)."""

    def __init__(self) -> None:
        self._answers: TaskResource | None = None

    def use(self, answers: TaskResource | None) -> None:
        self._answers = answers

    def bind(self, request: TaskRequest) -> BoundCall | None:
        answers = self._answers
        return answers.bind(request) if answers is not None else None


class _ControlPlaneLink:
    """The control plane as nested executions and the `aws-sdk:sfn` integration call it
    (`resources.control_plane.ControlPlane`). They are task resources, which the engine takes by
    constructor, while the control plane is built over the engine: the one cycle of the composition,
    closed by `connect` as soon as the control plane exists (before any execution can start)."""

    def __init__(self) -> None:
        self._service: ControlPlane | None = None

    def connect(self, service: ControlPlane) -> None:
        self._service = service

    def _connected(self) -> ControlPlane:
        if self._service is None:
            raise RuntimeError("the control plane is not built yet")
        return self._service

    def handle(self, operation: str, params: dict[str, Any], *, account: str, region: str) -> dict[str, Any]:
        return self._connected().handle(operation, params, account=account, region=region)

    def start_nested_execution(self, params: dict[str, Any], *, parent_execution_arn: str, account: str,
                               region: str) -> dict[str, Any]:
        return self._connected().start_nested_execution(params, parent_execution_arn=parent_execution_arn,
                                                        account=account, region=region)


def _aws_service_integrations() -> TaskResource:
    from sfn_emulator.resources.aws_services import AwsServiceIntegrations

    return AwsServiceIntegrations()


def _step_functions_sdk(control_plane: ControlPlane) -> TaskResource:
    from sfn_emulator.resources.sfn_sdk import StepFunctionsSdk

    return StepFunctionsSdk(control_plane)


def _remote_endpoints(settings: Settings) -> list[TaskResource]:
    """The resources of the services given a real endpoint (boto3 imported only when some are)."""
    endpoints = settings.remote_endpoints()
    if not endpoints:
        return []
    from sfn_emulator.resources.remote_endpoints import remote_resources

    return remote_resources(endpoints)


def _load_mocks(path: str | Path | None, shown_as: str | None = None) -> MockConfig | None:
    """The mock configuration at `path` (its modules imported only when there is one)."""
    if path is None:
        return None
    from sfn_emulator.resources.mocks import MockConfig

    return MockConfig.load(path, shown_as)


def _definition_text(definition: Mapping[str, Any] | str | Path) -> str:
    """A definition given as a dict, JSON text or a file, as JSON text."""
    if isinstance(definition, Mapping):
        return json.dumps(definition)
    if isinstance(definition, str) and definition.lstrip().startswith("{"):
        return definition
    from sfn_emulator.protocol.definition_files import read_definition_file

    return read_definition_file(definition)


def _open_state_dir(directory: Path | None) -> StateDirectory | None:
    """The state directory's store, opened and read (persistence imported only when one is given)."""
    if directory is None:
        return None
    from sfn_emulator.persistence import StateDirectory

    return StateDirectory(directory)


class _StackTarget:
    """An emulator as a stack loader sees it (`sfn_emulator.stacks.loader.Target`): one account and
    region, its control plane, its moto backends and its Lambda callables."""

    def __init__(self, emulator: Emulator, account: str, region: str,
                 register: Callable[[str, Callable[[Any, Any], Any], float], None] | None) -> None:
        self.emulator = emulator
        self.account = account
        self.region = region
        self._register = register
        from sfn_emulator.stacks.records import ENDPOINT, MOCK, NONE

        self.function_fallback = (ENDPOINT if emulator.settings.lambda_endpoint else
                                  MOCK if emulator.mocks is not None else NONE)

    def create_state_machine(self, **request: Any) -> str:
        service = self.emulator.service
        return str(service.create_state_machine(account=self.account, region=self.region, **request)["stateMachineArn"])

    def create_activity(self, name: str) -> str:
        service = self.emulator.service
        return str(service.create_activity(account=self.account, region=self.region, name=name)["activityArn"])

    def client(self, service: str) -> Any:
        return self.emulator._moto_clients().client(service, account=self.account, region=self.region)

    def register_function(self, arn: str, handler: Callable[[Any, Any], Any], timeout: float) -> None:
        if self._register is not None:
            self._register(arn, handler, timeout)
        else:
            self.emulator.functions.register(arn, handler, timeout=timeout)


class Emulator:
    """One emulated Step Functions endpoint: `.clock`, `.engine`, `.service`, `.functions`, `.coverage`
    (of every execution it finished), `.events` (the CloudEvents bus), `.eventbridge` (its part in the
    local EventBridge), the WSGI `.app` and `.server_app`, its quick front."""

    def __init__(self, settings: Settings, *, function_hint: str | None = None) -> None:
        """`function_hint` says how to serve a Lambda function nothing serves, in the caller's terms
        (`--functions` for the CLI, `sfn_emulator.register` in pytest, ...)."""
        self.settings = settings
        self.function_hint = function_hint
        local_files.allow_under(settings.allowed_file_roots)  # before a state directory's definitions are parsed
        self.state = _open_state_dir(settings.state_dir)
        clock_mode = self.state.clock_mode(settings.clock) if self.state else settings.clock
        clock_start = self.state.clock_start(clock_mode, settings.clock_start) if self.state else settings.clock_start
        self.clock = Clock(mode=clock_mode, start=clock_start, scale=settings.wait_time_scale)
        self.functions = LambdaFunctions(self.clock.now, default_timeout=settings.function_timeout)
        if settings.functions is not None:
            self.functions.update(load_function_map(settings.functions))
        self._mocks = _CurrentMocks(_load_mocks(settings.mock_config))
        self.aws = _BuiltOnFirstUse(_aws_service_integrations)
        seed = process_seed(settings.seed)
        self.seed = seed  # what every id the emulator draws comes from (`--seed`)
        self.coverage = CoverageRecorder()
        control_plane = _ControlPlaneLink()
        self._answers_first = _AnswersFirst()
        chain: list[TaskResource] = [self._answers_first, self._mocks, self.functions, *_remote_endpoints(settings),
                                     StartExecution(control_plane),
                                     _BuiltOnFirstUse(partial(_step_functions_sdk, control_plane)), HttpTask(),
                                     AwsJobs(lambda: self.aws.resource), self.aws]
        resources = TaskResources(chain, function_hint) if function_hint else TaskResources(chain)
        retention = timedelta(days=settings.execution_retention_days) if settings.execution_retention_days else None
        registry = Registry(self.clock.now, default_account=settings.account, default_region=settings.region,
                            execution_retention=retention)
        self.engine = Engine(self.clock, resources, seed=seed,
                             skip_external_deadlines=settings.clock_skip_external_deadlines,
                             interpreter_for=dialects.interpreter_for, activities=RegisteredActivities(registry),
                             observers=(self._mocks, self.coverage))
        self.events = EventBus(self.engine)  # CloudEvents to the executions waiting for them
        self.service = StepFunctionsService(self.engine, registry, seed=seed, mock_cases=self._mocks,
                                            log_groups=CloudWatchLogGroups(self._moto_clients))
        control_plane.connect(self.service)
        # Status changes on the default event bus; rules and schedules on this emulator's clock.
        self.eventbridge = EventBridge(engine=self.engine, service=self.service, functions=self.functions)
        self.engine.observe(self.eventbridge)
        # The other AWS APIs on this endpoint, by botocore model name (extensions: see `ApiExtension`).
        self._apis = {"swf": _ApiOnFirstRequest(self._make_swf)}
        self._stack_exports: dict[tuple[str, str], dict[str, Any]] = {}  # (account, region) -> Outputs' exports
        if self.state is not None:
            self.state.attach(self.service, self.engine, self.clock)

    @property
    def mocks(self) -> MockConfig | None:
        """The mock configuration in use (`--mock-config`, `use_mock_config`), if any."""
        return self._mocks.config

    def load_stack(self, path: str | Path, parameters: Mapping[str, str] | None = None, *,
                   account: str | None = None, region: str | None = None,
                   register: Callable[[str, Callable[[Any, Any], Any], float], None] | None = None) -> Stack:
        """Load the SAM or CloudFormation template, CDK assembly, Serverless package or Terraform JSON at
        `path`: its resources in moto, its Python functions as callables, its state machines created, in
        `account` and `region` (default: the settings'). `parameters` gives template parameters
        (`KEY` or `Stack.KEY`); `register(arn, handler, timeout)` replaces the function registration.
        Raises `sfn_emulator.stacks.StackError` for input it cannot read."""
        from sfn_emulator.stacks import load_stack

        target = _StackTarget(self, account or self.settings.account, region or self.settings.region, register)
        exports = self._stack_exports.setdefault((target.account, target.region), {})
        return load_stack(target, path, parameters, exports)

    def _moto_clients(self) -> Any:
        """The clients the AWS integrations call moto with: execution logs go to the same log groups."""
        return getattr(self.aws.resource, "backends")

    @property
    def swf(self) -> SwfService:
        """Amazon SWF on the same endpoint: its timers on the engine's clock, its Lambda functions the same
        callables. Made (and the `swf` package imported) when first asked for: most runs never call it."""
        return cast("SwfService", self._apis["swf"].api)

    def _make_swf(self) -> SwfService:
        from sfn_emulator.swf import SwfService

        return SwfService(self.engine, self.functions, function_hint=self.function_hint or "--functions",
                          ids=Randomness(f"{self.seed}:swf"))

    @cached_property
    def _api_endpoint(self) -> JsonProtocolEndpoint:
        from sfn_emulator.wire.app import api_endpoint

        return api_endpoint(self.service, default_account=self.settings.account, default_region=self.settings.region,
                            more_apis=self._apis.items(), ids=Randomness(f"{self.seed}:wire"))

    @cached_property
    def server_app(self) -> Front:
        """The WSGI app a server serves: `.app`, with API calls answered before it is built (Flask is
        most of a server's start-up; see `sfn_emulator.wire.front`)."""
        from sfn_emulator.wire.front import Front

        return Front(self._api_endpoint, lambda: self.app)

    @cached_property
    def app(self) -> Flask:
        """The WSGI app serving this emulator over HTTP, made (and Flask imported) when first asked for:
        in-process runs never need it."""
        from sfn_emulator.console.api import mount_console
        from sfn_emulator.replay.console_download import mount_test_case_download
        from sfn_emulator.wire import create_app
        from sfn_emulator.wire.aws_passthrough import mount_aws_passthrough
        from sfn_emulator.wire.clock_api import mount_clock_api
        from sfn_emulator.wire.events_api import mount_events_api
        from sfn_emulator.wire.faults import answer_faults_in_json
        from sfn_emulator.wire.insight_api import mount_insight_api
        from sfn_emulator.wire.reset_api import mount_reset_api
        from sfn_emulator.wire.snapshot_api import mount_snapshot_api

        app = create_app(self.service, default_account=self.settings.account, default_region=self.settings.region,
                         endpoint=self._api_endpoint)
        mount_clock_api(app, self.clock, self.engine)
        mount_insight_api(app, self.service, self.coverage)
        # Extensions (the core never imports them): each is a `mount_*(app, ...)` given the parts it reads.
        mount_console(app, self.service, self.engine, self.clock, self.coverage, self.eventbridge)
        mount_test_case_download(app, self.service)
        mount_aws_passthrough(app, default_account=self.settings.account)
        mount_reset_api(app, self.reset, self.service.reset, self.service.stop_running)
        mount_events_api(app, self.events)
        mount_snapshot_api(app, self.export_snapshot, self.import_snapshot)
        answer_faults_in_json(app, self._api_endpoint.request_id)
        return app

    def export_snapshot(self) -> bytes:
        """The whole Step Functions state (resources, executions with histories, the clock) as a
        snapshot file (`sfn_emulator.persistence.snapshot`)."""
        from sfn_emulator.persistence import export_snapshot

        return export_snapshot(self.service, self.engine, self.clock)

    def import_snapshot(self, data: bytes) -> dict[str, int]:
        """Replace the whole Step Functions state by a snapshot file's; `SnapshotError` (nothing
        changed) when it cannot be loaded. Answers counts of what was loaded."""
        from sfn_emulator.persistence import import_snapshot

        return import_snapshot(data, self.service, self.engine, self.clock,
                               self.state.recorder if self.state is not None else None)

    def reset(self, account: str | None = None) -> None:
        """Forget every resource, of Step Functions and of moto's AWS services, or only those of
        `account`; settings, the clock and registered callables stay. moto's backends are shared by
        the whole process: a reset of every account reaches other emulators in it too."""
        self.service.reset(account)
        for api in self._apis.values():
            if api.built is not None:
                api.built.reset(account)
        reset_moto_backends(account)

    def replay(self, history: Any, definition: Mapping[str, Any] | str | Path, input: Any = None, *,
               test_case: str | None = None, mock_config: str | Path | None = None,
               functions: Mapping[str, Callable[..., Any]] | None = None, until_divergence: bool = False,
               check_redrive: bool = False, timeout: float = 60.0) -> ReplayResult:
        """Replay a recorded execution against `definition` (a dict, JSON text or a JSON/YAML file):
        `history` is GetExecutionHistory's answer (boto3's or the AWS CLI's, one page or a list of
        pages) or a file holding it; `input` replaces the recording's. It runs in an emulator of its
        own (these settings, a clock starting at the recording's start time, the recording's
        account and region), each Task answered from the recording; what the recording lacks comes
        from `test_case` of `mock_config` (default: this emulator's) or from `functions` and the
        callables registered here. Raises `HistoryError` or `ReplayError` for what cannot be replayed."""
        from sfn_emulator.replay import ReplayOptions, history_events, read_history_file, replay
        from sfn_emulator.replay.history import recorded_account_and_region

        events = read_history_file(history) if isinstance(history, (str, Path)) else history_events(history)
        account, region = recorded_account_and_region(events)
        if mock_config is None and test_case is not None and self.mocks is not None:
            mock_config = self.mocks.path
        settings = msgspec.structs.replace(
            self.settings, clock="manual", clock_start=events[0]["timestamp"], account=account or self.settings.account,
            region=region or self.settings.region, state_dir=None, functions=None,
            mock_config=Path(mock_config) if mock_config is not None else None)
        with Emulator(settings, function_hint=self.function_hint) as own:
            own.functions.update({**self.functions.registered(), **(functions or {})})
            options = ReplayOptions(test_case, until_divergence, check_redrive, timeout)
            return replay(own, events, _definition_text(definition), input, options)

    def use_mock_config(self, path: str | Path | None, *, shown_as: str | None = None) -> None:
        """Answer test cases from the mock configuration at `path` from now on (None: no mocks);
        messages name it `shown_as` (default: its path).

        A file that cannot be used raises `MockConfigError` and leaves the current one in place."""
        self._mocks.use(_load_mocks(path, shown_as))

    def answer_tasks_with(self, answers: TaskResource | None) -> None:
        """Have `answers` answer Tasks before every other resource from now on (None: the chain
        alone): a replay's recorded answers, which answer every Task of the replay themselves."""
        self._answers_first.use(answers)

    def close(self) -> None:
        """Stop the engine's thread; running executions stop where they are (with a state directory,
        they go on from there at the next start), SWF's long polls end, and the server app's warm-up
        is waited for."""
        self.eventbridge.close()
        for api in self._apis.values():
            if api.built is not None:
                api.built.close()
        if "server_app" in self.__dict__:  # a server's app was made: its warm-up ends with it
            self.server_app.close()
        self.engine.close()
        if self.state is not None:
            self.state.close()

    def __enter__(self) -> Emulator:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
