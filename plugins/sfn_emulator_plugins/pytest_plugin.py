"""The pytest plugin of sfn-emulator, registered through the `pytest11` entry point.

Fixtures:
- `sfn_emulator`: a running emulator for this test (`sfn_emulator_plugins.pytest_emulator.EmulatorFixture`):
  `.endpoint_url`, `.account`, `.region`, `.clock`, `.register(name_or_arn, handler)`,
  `.use_mock_config(path_or_dict)`, `.client(service)`, `.run(definition, input)` -> `ExecutionResult`,
  `.publish_event(cloud_event)` (to executions waiting for it), `.produced_events(execution_arn)`,
  `.load_stack(path, parameters=None)` -> `Stack` (a SAM/CloudFormation template, CDK assembly, Serverless
  package or Terraform JSON, loaded into the test's account), `.stacks` (those of ini `sfn_emulator_stacks`).
- `sfn_client`: a boto3 Step Functions client on it (dummy credentials, `inject_host_prefix=False`).
- `sfn_emulator_inprocess`: `sfn_emulator`, with boto3 clients that have no `endpoint_url` answered
  by it in-process (`sfn_emulator.inprocess`); dummy AWS credentials and the emulator's region are put
  in the environment for the test.
- `sfn_emulator_server` (session): the session's emulator, started on first use.

Isolation: the server is started once per session (per xdist worker, each on its own free port);
each test acts in an account of its own (a fresh 12-digit account id). At its teardown the
executions still running in that account are stopped, all at one moment, with one
`ExecutionsLeftRunning` warning naming them, so nothing a test left (a callback racing its
timeout, a long Wait) can hold the auto clock for the next; its Lambda callables, mock
configuration and clock mode are undone. A test marked `sfn_emulator_shared` acts in the
emulator's default account, which all such tests share, and is not cleaned. The clock is the
session's: time a test moved stays moved. Clients come from one boto3 session per worker (see
`sfn_emulator_plugins.pytest_clients`).

Ini `sfn_emulator_stacks`: stack paths (one per line, relative to the ini file's directory) loaded into
each test's account before it runs, as `sfn_emulator.stacks`.

Options (or ini keys `sfn_emulator_endpoint`, `sfn_emulator_clock`): `--sfn-emulator-endpoint URL`
uses a server already running there instead of starting one; `--sfn-emulator-clock
auto|manual|real` (default auto) chooses the clock mode; `--sfn-emulator-snapshot FILE` (ini
`sfn_emulator_snapshot`) starts the session's emulator from a snapshot file (`sfn-emulator snapshot
save`), whose resources live in the snapshot's accounts (tests marked `sfn_emulator_shared` see the
default account's).

Nothing of the emulator is imported until a test asks for one of these fixtures.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from sfn_emulator_plugins.pytest_emulator import EmulatorFixture, SessionEmulator

CLOCK_MODES = ("auto", "manual", "real")
# The session emulators started or connected to, for readers at the end of the session (coverage).
SESSION_EMULATORS = pytest.StashKey[list]()
SHARED_MARKER = "sfn_emulator_shared"
HEALTH_PATH = "/_emulator/health"
HEALTH_TIMEOUT = 10.0  # wall seconds for an endpoint to answer at session start
DUMMY_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("sfn-emulator", "AWS Step Functions emulator (sfn-emulator)")
    group.addoption("--sfn-emulator-endpoint", metavar="URL", default=None,
                    help="use the sfn-emulator already serving at URL instead of starting one in-process "
                         "[ini sfn_emulator_endpoint]")
    group.addoption("--sfn-emulator-clock", choices=CLOCK_MODES, default=None,
                    help="clock mode of the emulator: auto (default), manual or real [ini sfn_emulator_clock]")
    group.addoption("--sfn-emulator-snapshot", metavar="FILE", default=None,
                    help="start the session's emulator from this snapshot file (sfn-emulator snapshot save); "
                         "its resources are in the snapshot's accounts: mark tests sfn_emulator_shared to "
                         "use them [ini sfn_emulator_snapshot]")
    parser.addini("sfn_emulator_snapshot", "snapshot file the session's emulator starts from", default="")
    parser.addini("sfn_emulator_endpoint", "URL of an sfn-emulator to use instead of starting one", default="")
    parser.addini("sfn_emulator_clock", "clock mode of the emulator: auto, manual or real", default="")
    parser.addini("sfn_emulator_stacks", "stacks (SAM/CloudFormation template, cdk.out, .serverless, Terraform JSON) "
                  "loaded into each test's account", type="paths", default=[])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{SHARED_MARKER}: act in the emulator's default account, shared with other tests so marked"
    )


def pytest_sessionstart(session: pytest.Session) -> None:
    """An endpoint that does not answer fails the run here, once, in one line, instead of in every test."""
    endpoint = _setting(session.config, "sfn_emulator_endpoint")
    if endpoint is None:
        return
    import urllib.error
    import urllib.request

    health = endpoint.rstrip("/") + HEALTH_PATH
    try:
        with urllib.request.urlopen(health, timeout=HEALTH_TIMEOUT):
            return
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        raise pytest.UsageError(f"--sfn-emulator-endpoint {endpoint}: no sfn-emulator answers at {health} ({reason}); "
                                "start one (sfn-emulator serve) or leave the option out to start one in-process")


def _setting(config: pytest.Config, name: str) -> str | None:
    given = config.getoption(f"--{name.replace('_', '-')}") or config.getini(name)
    return str(given) if given else None


@pytest.fixture(scope="session")
def sfn_emulator_server(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SessionEmulator]:
    """The session's emulator: started here on a free port, or the one at --sfn-emulator-endpoint."""
    from sfn_emulator.config import Settings
    from sfn_emulator_plugins.pytest_emulator import SessionEmulator

    clock = _setting(pytestconfig, "sfn_emulator_clock")
    if clock is not None and clock not in CLOCK_MODES:
        raise pytest.UsageError(f"sfn_emulator_clock must be one of {', '.join(CLOCK_MODES)}, not {clock!r}")
    scratch = tmp_path_factory.mktemp("sfn-emulator")
    endpoint = _setting(pytestconfig, "sfn_emulator_endpoint")
    if endpoint is not None:
        session = SessionEmulator.connect(endpoint, scratch, clock)
    else:
        session = SessionEmulator.start(Settings(clock=clock or "auto"), scratch)
    pytestconfig.stash.setdefault(SESSION_EMULATORS, []).append(session)
    snapshot = _setting(pytestconfig, "sfn_emulator_snapshot")
    if snapshot is not None:
        try:
            session.load_snapshot(Path(snapshot))
        except (OSError, ValueError) as error:
            session.close()
            raise pytest.UsageError(f"--sfn-emulator-snapshot {snapshot}: {error}") from None
    try:
        yield session
    finally:
        session.close()


@pytest.fixture
def sfn_emulator(sfn_emulator_server: SessionEmulator, request: pytest.FixtureRequest) -> Iterator[EmulatorFixture]:
    """The emulator for this test: its own account (unless marked sfn_emulator_shared), callables and mocks."""
    from sfn_emulator_plugins.pytest_emulator import EmulatorFixture, new_account_id

    shared = request.node.get_closest_marker(SHARED_MARKER) is not None
    account = sfn_emulator_server.default_account if shared else new_account_id()
    emulator = EmulatorFixture(sfn_emulator_server, account, request.path.parent, own_account=not shared)
    try:
        stacks = request.config.getini("sfn_emulator_stacks")
        if stacks:
            from sfn_emulator.stacks import StackError

            problem = None
            try:
                emulator.stacks = [emulator.load_stack(path) for path in stacks]
            except StackError as error:
                problem = f"sfn_emulator_stacks: {error}"
            if problem is not None:
                pytest.fail(problem, pytrace=False)
        yield emulator
    finally:
        emulator.finish()


@pytest.fixture
def sfn_client(sfn_emulator: EmulatorFixture) -> Any:
    """A boto3 Step Functions client on the emulator, acting in the test's account."""
    return sfn_emulator.client()


@pytest.fixture
def sfn_emulator_inprocess(sfn_emulator: EmulatorFixture, monkeypatch: pytest.MonkeyPatch) -> Iterator[EmulatorFixture]:
    """`sfn_emulator`, answering in-process every boto3 Step Functions client that has no endpoint_url."""
    from sfn_emulator.inprocess import intercept

    local = sfn_emulator.session.local
    if local is None:
        pytest.fail("sfn_emulator_inprocess needs the emulator in this process; --sfn-emulator-endpoint was given",
                    pytrace=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)  # a profile would take precedence over these credentials
    for name, value in DUMMY_CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_DEFAULT_REGION", sfn_emulator.region)
    with intercept(local, account=sfn_emulator.account):
        yield sfn_emulator
