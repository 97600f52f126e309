"""What the pytest plugin's fixtures hand to tests (`sfn_emulator_plugins.pytest_plugin` wires them up).

- `SessionEmulator`: the emulator a test session talks to: an `Emulator` served on a free loopback
  port in this process (one per pytest-xdist worker), or a server already running elsewhere
  (`--sfn-emulator-endpoint`, e.g. a Docker container).
- `EmulatorFixture`: that emulator as one test sees it: its own account, its own Lambda callables
  and mock configuration, boto3 clients, and helpers that run a definition and wait for it.
- `RemoteClock`: a remote emulator's clock through `/_emulator/clock`, with the local clock's methods.
"""

from __future__ import annotations

import difflib
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

import msgspec

from sfn_emulator.api import (
    DEFAULT_TIMEOUT, MOCK_CONFIG_DICT, Definition, ExecutionRunner, load_definition, write_mock_config,
)
from sfn_emulator.clock.virtual_clock import Clock, format_time, parse_time
from sfn_emulator.config import Settings
from sfn_emulator.coverage.recorder import definition_id
from sfn_emulator.results.execution_result import RUNNING, ExecutionResult
from sfn_emulator.runtime import Emulator
from sfn_emulator.wire import HttpServer
from sfn_emulator_plugins.pytest_clients import TestClients

if TYPE_CHECKING:
    from sfn_emulator.replay import ReplayResult  # imported by a replay, not by every test session
    from sfn_emulator.stacks import Stack

CLOCK_PATH = "/_emulator/clock"
STOP_RUNNING_PATH = "/_emulator/stop-running"
Handler = Callable[[Any, Any], Any]
_FUNCTION_NOT_FOUND = "Lambda.ResourceNotFoundException"
_OTHER_TESTS_POLL = 0.05  # wall seconds between looks at the executions of other tests holding the clock
_MISSING_FUNCTION = re.compile(r"Function not found: (arn:[^ ]+?:function:[^:\s]+)")


class RemoteClock:
    """The clock of the emulator at `endpoint_url`: `now`, `mode`, `advance`, `set`, `run_until_idle`."""

    def __init__(self, endpoint_url: str) -> None:
        self._url = endpoint_url.rstrip("/") + CLOCK_PATH

    def now(self) -> datetime:
        return parse_time(self._send(None)["now"])

    @property
    def mode(self) -> str:
        return str(self._send(None)["mode"])

    @mode.setter
    def mode(self, mode: str) -> None:
        self._send({"mode": mode})

    def advance(self, seconds: float | timedelta) -> datetime:
        """Move time forward; answers once the timers due by then have fired and what they woke has run."""
        delta = seconds.total_seconds() if isinstance(seconds, timedelta) else seconds
        return parse_time(self._send({"advance": delta})["now"])

    def set(self, moment: datetime) -> datetime:
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        return parse_time(self._send({"set": format_time(moment)})["now"])

    def held_by(self) -> list[str]:
        """The executions whose outsiders' deadlines keep the auto clock from jumping (`heldBy`)."""
        return list(self._send(None).get("heldBy", []))

    def run_until_idle(self, timeout: float | None = None) -> bool:
        """Let everything runnable run (a move of zero seconds waits for the engine to settle)."""
        self._send({"advance": 0}, timeout)
        return True

    def _send(self, change: dict[str, Any] | None, timeout: float | None = None) -> dict[str, Any]:
        data = json.dumps(change).encode() if change is not None else None
        request = urllib.request.Request(self._url, data=data, method="POST" if data else "GET",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout or DEFAULT_TIMEOUT) as response:
                return dict(json.load(response))
        except urllib.error.HTTPError as error:
            message = json.loads(error.read() or b"{}").get("message", error.reason)
            raise ValueError(f"{self._url}: {message}") from None


class SessionEmulator:
    """The emulator of one test session (of one xdist worker): local, or at a remote endpoint."""

    def __init__(self, endpoint_url: str, clock: Clock | RemoteClock, *, local: Emulator | None,
                 server: HttpServer | None, scratch: Path, region: str, default_account: str) -> None:
        self.endpoint_url = endpoint_url
        self.clock = clock
        self.local = local  # None when the emulator runs elsewhere
        self.region = region
        self.default_account = default_account
        self.scratch = scratch  # where mock configurations given as dicts are written
        self.definition_sources: dict[str, Path] = {}  # definition id -> the file it was read from
        self.clock_mode = clock.mode  # what each test's clock mode is put back to
        self._server = server
        self.clients = TestClients(self.endpoint_url, region)  # each test's, in its account

    @classmethod
    def start(cls, settings: Settings, scratch: Path) -> SessionEmulator:
        """An emulator in this process, served on a free loopback port."""
        local = Emulator(settings, function_hint="call `sfn_emulator.register(name_or_arn, handler)` in the test")
        server = HttpServer(local.server_app, "127.0.0.1", 0).start()
        return cls(server.endpoint_url, local.clock, local=local, server=server, scratch=scratch,
                   region=settings.region, default_account=settings.account)

    @classmethod
    def connect(cls, endpoint_url: str, scratch: Path, clock_mode: str | None) -> SessionEmulator:
        """The emulator already serving at `endpoint_url` (its default account and region are assumed)."""
        clock = RemoteClock(endpoint_url)
        if clock_mode is not None:
            clock.mode = clock_mode
        settings = Settings()
        return cls(endpoint_url.rstrip("/"), clock, local=None, server=None, scratch=scratch,
                   region=settings.region, default_account=settings.account)

    def load_snapshot(self, path: Path) -> None:
        """Replace the emulator's whole state by a snapshot file's; ValueError when it is refused."""
        data = path.read_bytes()
        if self.local is not None:
            self.local.import_snapshot(data)
            return
        request = urllib.request.Request(f"{self.endpoint_url}/_emulator/snapshot", data=data, method="PUT",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=DEFAULT_TIMEOUT):
                pass
        except urllib.error.HTTPError as error:
            raise ValueError(json.loads(error.read() or b"{}").get("message", error.reason)) from None

    def coverage_json(self) -> dict[str, Any]:
        """The workflow coverage of every execution this emulator finished (see `sfn_emulator.coverage`),
        each machine with the file its definition was read from (`source`) where a test named one."""
        if self.local is not None:
            report = self.local.coverage.json()
        else:
            with urllib.request.urlopen(f"{self.endpoint_url}/_emulator/coverage", timeout=30) as answer:
                report = dict(json.loads(answer.read()))
        for machine in report["stateMachines"]:
            source = self.definition_sources.get(machine["definitionId"])
            if source is not None:
                machine["source"] = str(source)
        return report

    def clock_holders(self) -> list[str]:
        """The executions whose outsiders' deadlines keep the auto clock from jumping."""
        if self.local is not None:
            return self.local.engine.clock_holders()
        return list(self.clock.held_by()) if isinstance(self.clock, RemoteClock) else []

    def stop_running(self, account: str) -> list[str]:
        """Abort the running executions of `account`; their ARNs."""
        if self.local is not None:
            return self.local.service.stop_running(account)
        request = urllib.request.Request(f"{self.endpoint_url}{STOP_RUNNING_PATH}", method="POST",
                                         data=json.dumps({"account": account}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=DEFAULT_TIMEOUT) as answer:  # noqa: S310 - the emulator's URL
            return list(json.loads(answer.read())["stopped"])

    def close(self) -> None:
        if self._server is not None:
            self._server.stop()
        if self.local is not None:
            self.local.close()


def new_account_id() -> str:
    """A random 12-digit account id: a test's own account, even on a server shared between runs."""
    return f"{uuid.uuid4().int % 10**12:012d}"


class ExecutionsLeftRunning(UserWarning):
    """A test ended with executions of its own account still running (stopped at its teardown)."""


class EmulatorFixture:
    """The `sfn_emulator` fixture: the session's emulator, seen from one test.

    Requests from `client()` (and `sfn_client`) act in `account`, the test's own unless it is marked
    `sfn_emulator_shared`. Lambda callables registered and the mock configuration chosen here last
    for the test only. Relative definition paths given to `run` are looked up from the test file's
    directory.
    """

    def __init__(self, session: SessionEmulator, account: str, base_dir: Path, *, own_account: bool = True) -> None:
        self.session = session
        self.account = account
        self.own_account = own_account  # False: the shared default account, whose executions are not the test's
        self.base_dir = base_dir
        self._registered: list[str] = []
        self._runner: ExecutionRunner | None = None
        self.stacks: list[Stack] = []  # the stacks of ini `sfn_emulator_stacks`, loaded for this test

    @property
    def endpoint_url(self) -> str:
        return self.session.endpoint_url

    @property
    def region(self) -> str:
        return self.session.region

    @property
    def clock(self) -> Clock | RemoteClock:
        """The emulator's clock (shared by every test of the session): `now()`, `mode`,
        `advance(seconds)`, `set(datetime)`, `run_until_idle()`."""
        return self.session.clock

    def client(self, service_name: str = "stepfunctions", **config: Any) -> Any:
        """A boto3 client on the emulator's endpoint, acting in this test's account; other services
        (SQS, DynamoDB, ...) are answered there by moto's backends, as Task states see them.
        `config` adds botocore `Config` options."""
        return self.session.clients.client(service_name, self.account, **config)

    @property
    def is_remote(self) -> bool:
        """True when the emulator runs in another process (`--sfn-emulator-endpoint`)."""
        return self.session.local is None

    def register(self, name_or_arn: str, handler: Handler, *, timeout: float | None = None,
                 skip_remote: bool = False) -> Handler:
        """Serve the Lambda function `name_or_arn` with `handler(event, context)` for this test;
        `timeout`: its function timeout in seconds (default: the emulator's).

        A remote emulator cannot call a callable of this process: that raises an error saying how to
        serve the function there, or skips the test when `skip_remote` is true."""
        if self.is_remote:
            where = (f"the emulator at {self.endpoint_url} runs in another process, which cannot call a Python "
                     f"callable of this one")
            if skip_remote:
                import pytest

                pytest.skip(f"{name_or_arn!r} needs a Python callable and {where}")
            raise RuntimeError(
                f"cannot register a Lambda callable for {name_or_arn!r}: {where}. Serve it there with a functions "
                f"map ('{name_or_arn}: path/to/file.py:callable', given by `sfn-emulator serve --functions FILE` or "
                "SFN_EMULATOR_FUNCTIONS), or pass skip_remote=True to skip this test against a remote emulator"
            )
        self._local("register a Lambda callable").functions.register(name_or_arn, handler, timeout=timeout)
        self._registered.append(name_or_arn)
        return handler

    def load_stack(self, path: str | Path, parameters: Mapping[str, str] | None = None) -> Stack:
        """Load a SAM/CloudFormation template, CDK assembly, Serverless package or Terraform JSON (relative
        paths from the test's directory) into this test's account: its resources in moto, its Python
        functions registered for this test, its state machines created. See `Emulator.load_stack`."""
        local = self._local("load a stack")
        path = Path(path)
        return local.load_stack(path if path.is_absolute() else self.base_dir / path, parameters,
                                account=self.account, region=self.region, register=self._register_for_test)

    def _register_for_test(self, arn: str, handler: Handler, timeout: float) -> None:
        self.register(arn, handler, timeout=timeout)

    def use_mock_config(self, config: str | Path | Mapping[str, Any] | None) -> None:
        """Answer mocked test cases from this mock configuration (a file, relative paths from the
        test's directory, or a dict) for this test; None: no mocks."""
        local = self._local("choose a mock configuration")
        shown_as = None
        if isinstance(config, Mapping):
            config, shown_as = write_mock_config(config, self.session.scratch), MOCK_CONFIG_DICT
        elif config is not None and not Path(config).is_absolute():
            config = self.base_dir / config
        local.use_mock_config(config, shown_as=shown_as)

    def run(self, definition: Definition, input: Any = None, *, name: str | None = None,
            test_case: str | None = None, type: str | None = None,
            timeout: float | None = DEFAULT_TIMEOUT) -> ExecutionResult:
        """Run `definition` (a dict, JSON text, a JSON/YAML file, or a state machine ARN) once with
        `input` and return the execution once it has ended or waits for someone; see
        `sfn_emulator.api.ExecutionRunner.run`."""
        definition, name = self._note_source(definition, name)
        result = self.runner.run(definition, input, name=name, test_case=test_case, type=type, timeout=timeout)
        return self._explained(self._past_other_tests(result, timeout))

    def replay(self, history: Any, definition: Definition, input: Any = None, *, test_case: str | None = None,
               mock_config: str | Path | None = None, until_divergence: bool = False,
               check_redrive: bool = False) -> ReplayResult:
        """Replay a recorded execution history (GetExecutionHistory's answer, or a file holding it) against
        `definition` (relative paths from the test's directory); `.assert_matched()` fails the test with
        the first divergence. Callables registered for this test answer Tasks the recording never ran,
        as does `test_case` of `mock_config`. See `sfn_emulator.Emulator.replay`."""
        local = self._local("replay a recorded execution")
        is_file = isinstance(definition, Path) or isinstance(definition, str) and not definition.lstrip().startswith("{")
        return local.replay(self._here(history) if isinstance(history, (str, Path)) else history,
                            self._here(definition) if is_file else definition, input,
                            test_case=test_case, until_divergence=until_divergence, check_redrive=check_redrive,
                            mock_config=self._here(mock_config) if mock_config is not None else None)

    def run_test_case(self, path: str | Path, *, timeout: float | None = DEFAULT_TIMEOUT) -> ExecutionResult:
        """Run a test case written by `sfn-emulator export-test` (its CASE.test.json, or the directory
        holding only one): its definition under its mock configuration test case, with its input;
        the test fails unless the execution ends as the case expects."""
        __tracebackhide__ = True
        from sfn_emulator.replay.mock_case import read_test_case

        case = read_test_case(self._here(path))
        self.use_mock_config(case.mock_config)
        result = self.run(case.definition, case.input, name=case.state_machine, test_case=case.test_case,
                          timeout=timeout)
        expect = case.expect
        if expect.get("status") == "SUCCEEDED":
            return result.assert_succeeded(output=expect.get("output"))
        if expect.get("status") == "FAILED":
            return result.assert_failed(expect.get("error"), expect.get("cause"))
        return result.assert_status(str(expect.get("status")))

    def _here(self, path: str | Path) -> Path:
        return Path(path) if Path(path).is_absolute() else self.base_dir / path

    def create_state_machine(self, definition: Definition, *, name: str | None = None,
                             type: str = "STANDARD") -> str:
        definition, name = self._note_source(definition, name)
        return self.runner.create_state_machine(definition, name=name, type=type)

    def _note_source(self, definition: Definition, name: str | None) -> tuple[Definition, str | None]:
        """A definition file read here, its file noted for coverage reports that show it (Cobertura, Sonar)."""
        if isinstance(definition, Mapping) or (isinstance(definition, str)
                                               and definition.lstrip().startswith(("{", "arn:"))):
            return definition, name
        text, file_name = load_definition(definition, self.base_dir)
        path = Path(definition)
        self.session.definition_sources[definition_id(text)] = (path if path.is_absolute() else self.base_dir / path).resolve()
        return text, name or file_name

    def wait(self, execution_arn: str, *, timeout: float | None = DEFAULT_TIMEOUT) -> ExecutionResult:
        """An execution started some other way, once it has ended or waits for someone."""
        return self._explained(self._past_other_tests(self.runner.wait(execution_arn, timeout=timeout), timeout))

    def _past_other_tests(self, result: ExecutionResult, timeout: float | None) -> ExecutionResult:
        """The execution once no other account's execution holds the auto clock: on a server shared by
        several workers, another test racing a callback deadline keeps the clock from jumping until it
        ends (its teardown stops what it leaves), which may make this test wait but never changes
        what its execution does. (In this process, tests run one at a time: nothing else can end.)"""
        deadline = None if timeout is None else time.monotonic() + timeout
        settled = False  # waited for since the clock was last seen held by others
        while result.status == RUNNING and self.is_remote and self.clock.mode == "auto":
            others = [arn for arn in self.session.clock_holders() if arn.split(":")[4] != self.account]
            if others and (deadline is None or time.monotonic() < deadline):
                time.sleep(_OTHER_TESTS_POLL)
                settled = False
                continue
            if settled or others:
                return result
            # It may have settled while others held the clock, which they have let go of since.
            result = self.runner.wait(result.execution_arn, timeout=timeout)
            settled = True
        return result

    def _explained(self, result: ExecutionResult) -> ExecutionResult:
        """The result with notes for its failure message: who holds the clock it waits for, how to
        serve the Lambda function it did not find."""
        notes = []
        if result.status == RUNNING and self.clock.mode == "auto":
            holders = [arn for arn in self.session.clock_holders() if arn != result.execution_arn]
            if holders:
                notes.append("the auto clock cannot jump to this execution's next timer while "
                             + ", ".join(f"execution {arn} (account {arn.split(':')[4]})" for arn in holders)
                             + " waits for a callback or an activity worker with a deadline running; answer or "
                             "stop it (the plugin stops a test's leftovers at its teardown)")
        missing = _MISSING_FUNCTION.search(result.cause or "") if result.error == _FUNCTION_NOT_FOUND else None
        if missing is not None:
            notes.append(self._function_hint(missing.group(1)))
        return msgspec.structs.replace(result, notes=result.notes + tuple(notes)) if notes else result

    def _function_hint(self, arn: str) -> str:
        name = arn.rsplit(":", 1)[-1]
        if self.is_remote:
            return (f"no function is mapped for {arn} on the emulator at {self.endpoint_url}: serve it there "
                    "(sfn-emulator serve --functions FILE)")
        close = difflib.get_close_matches(name, [known.rsplit(":", 1)[-1] for known in self._registered], n=3)
        guess = f"; did you mean {' or '.join(repr(known) for known in close)}?" if close else "."
        return (f"no function mapped for ARN {arn}{guess} Register one with "
                f"sfn_emulator.register({name!r}, handler)")

    def publish_event(self, event: Mapping[str, Any] | list[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Publish one CloudEvents 1.0 event (or a list) to the executions waiting for it, through
        `POST /_emulator/events`; for each event, `{"id": ..., "consumedBy": [executionArn, ...]}`.
        Raises ValueError with the emulator's message for an event it refuses."""
        request = urllib.request.Request(f"{self.endpoint_url}/_emulator/events", data=json.dumps(event).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - the emulator's own URL
                return json.loads(response.read())["events"]
        except urllib.error.HTTPError as error:
            raise ValueError(json.loads(error.read() or b"{}").get("message", str(error))) from None

    def produced_events(self, execution_arn: str) -> list[dict[str, Any]]:
        """The CloudEvents the execution produced (`GET /_emulator/events?executionArn=`)."""
        query = urllib.parse.urlencode({"executionArn": execution_arn})
        with urllib.request.urlopen(f"{self.endpoint_url}/_emulator/events?{query}", timeout=30) as response:  # noqa: S310
            return json.loads(response.read())["events"]

    def task_token(self, execution_arn: str, state_name: str) -> str:
        """The task token the execution's latest task in state `state_name` was given, to answer with
        `sfn_client.send_task_success(taskToken=..., output=...)`; see `ExecutionResult.task_token`."""
        return self.runner.result(execution_arn).task_token(state_name)

    @property
    def runner(self) -> ExecutionRunner:
        if self._runner is None:
            self._runner = ExecutionRunner(self.client(), self.clock, role_arn=f"arn:aws:iam::{self.account}:role/sfn",
                                           base_dir=self.base_dir)
        return self._runner

    def finish(self) -> None:
        """Undo what the test changed on the shared emulator: executions it left running in its own
        account are stopped (with one warning naming them), callables, mocks and clock mode put back."""
        if self.own_account:
            left = self.session.stop_running(self.account)
            if left:
                warnings.warn(ExecutionsLeftRunning(
                    f"the test left {len(left)} execution(s) running in its account {self.account}; sfn-emulator "
                    f"stopped them at teardown, so they cannot hold the clock or change another test: {', '.join(left)}"
                ), stacklevel=1)
        local = self.session.local
        if local is not None:
            for name in self._registered:
                local.functions.unregister(name)
            if local.mocks is not None:
                local.use_mock_config(None)
        if self.clock.mode != self.session.clock_mode:
            self.clock.mode = self.session.clock_mode

    def _local(self, doing: str) -> Emulator:
        if self.session.local is None:
            raise RuntimeError(
                f"cannot {doing}: the emulator runs at {self.endpoint_url} (--sfn-emulator-endpoint), not in this "
                "process; configure that server instead (--functions, --mock-config)"
            )
        return self.session.local
