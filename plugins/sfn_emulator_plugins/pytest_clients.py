"""The boto3 clients the tests of one session (one xdist worker) get, each acting in its test's account.

A boto3 client costs tens of milliseconds to build (botocore copies its session's event handlers
and resolves its endpoint), more than most workflow tests. So the session keeps one client per
service and hands it to test after test, acting in each test's account: the emulator reads the
account from the access key id, and the clients sign with one `Credentials` object whose access
key is set to the account of the test that asks. A client a test changed (an event handler
registered or removed, as botocore's `Stubber` does) is never handed on: the next test gets a new
one. Clients with botocore `Config` options of their own are the test's alone.
"""

from __future__ import annotations

from typing import Any

import boto3
import botocore.session
from botocore.config import Config
from botocore.credentials import CredentialProvider, Credentials

SECRET_KEY = "testing"
BASE_OPTIONS: dict[str, Any] = {"inject_host_prefix": False, "retries": {"total_max_attempts": 1}}
# The ways a client's behaviour is changed after it is made: through its event handlers.
_CHANGING_METHODS = ("register", "register_first", "register_last", "unregister")


class _TestAccountProvider(CredentialProvider):
    """botocore's credential chain, first link: the credentials whose access key is the test's account."""

    METHOD = "sfn-emulator-test-account"
    CANONICAL_NAME = "SfnEmulatorTestAccount"

    def __init__(self, credentials: Credentials) -> None:
        super().__init__()
        self._credentials = credentials

    def load(self) -> Credentials:
        return self._credentials


class _Watched:
    """A shared client, and whether a test changed its event handlers."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.changed = False
        events = client.meta.events
        for name in _CHANGING_METHODS:
            setattr(events, name, self._noting(getattr(events, name)))

    def _noting(self, method: Any) -> Any:
        def changing(*args: Any, **kwargs: Any) -> Any:
            self.changed = True
            return method(*args, **kwargs)

        return changing


class TestClients:
    """boto3 clients on `endpoint_url`: `client(service, account)` for the test running now."""

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, endpoint_url: str, region: str) -> None:
        self.endpoint_url = endpoint_url
        self.region = region
        self._credentials = Credentials("000000000000", SECRET_KEY)
        core = botocore.session.Session()
        core.get_component("credential_provider").insert_before("env", _TestAccountProvider(self._credentials))
        self._session = boto3.session.Session(botocore_session=core, region_name=region)
        self._shared: dict[str, _Watched] = {}

    def client(self, service_name: str, account: str, **config: Any) -> Any:
        """A client acting in `account`: the session's for `service_name` (unless a test changed it),
        or, with `config` (botocore `Config` options), a new one of the caller's own."""
        if config:
            return self._session.client(service_name, endpoint_url=self.endpoint_url, aws_access_key_id=account,
                                        aws_secret_access_key=SECRET_KEY,
                                        config=Config(**{**BASE_OPTIONS, **config}))
        self._credentials.access_key = account
        shared = self._shared.get(service_name)
        if shared is None or shared.changed:
            shared = self._shared[service_name] = _Watched(self._session.client(
                service_name, endpoint_url=self.endpoint_url, config=Config(**BASE_OPTIONS)))
        return shared.client
