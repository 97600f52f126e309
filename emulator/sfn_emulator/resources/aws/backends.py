"""Botocore clients whose requests moto's in-memory backends answer, in this process, for our clients only.

moto's `mock_aws` would patch every botocore client of the process (the user's too), so it is not
used. Instead each client made here carries its own 'before-send' handler that passes the signed
request to moto's request dispatcher (`BotocoreStubber.process_request`, the same entry point
`mock_aws` uses) and never lets it reach the network. moto 5 takes a request's account from the
`x-moto-account-id` header, which every client sets to its account; the region is the client's.
The backends are moto's process-wide ones, so the HTTP passthrough (`sfn_emulator.wire.aws_passthrough`)
and these clients see the same queues, tables and buckets.

boto3 and moto are imported when the first client is made: most runs never call an AWS service,
and importing them is most of an emulator's start-up time.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import botocore.session
from botocore.awsrequest import AWSPreparedRequest, AWSRequest, AWSResponse
from botocore.config import Config

from sfn_emulator.process import long_lived
from sfn_emulator.asl.errors import RUNTIME, StatesError
from sfn_emulator.resources.aws import MOTO_ACCOUNT_HEADER, OWN_CLIENT_CONTEXT_KEY, moto_state

if TYPE_CHECKING:
    import boto3
    from botocore.client import BaseClient
    from botocore.model import OperationModel


# Requests are signed as usual (moto reads the region from the signature); the secret is never checked.
_ACCESS_KEY_ID = "sfn-emulator"
_SECRET_ACCESS_KEY = "sfn-emulator"

_CLIENT_CONFIG = Config(
    # Like the Java SDK Step Functions uses, send what the state gave and let the service judge it.
    parameter_validation=False,
    retries={"total_max_attempts": 1},
    # AWS_ENDPOINT_URL* settings of the user's environment must not move our clients off moto's URLs.
    ignore_configured_endpoint_urls=True,
)


class UnservedRequest(RuntimeError):
    """A request for which moto has no backend: it would otherwise have gone out to the network."""


class MotoBackends:
    """Makes and caches one client per (service, account, region), all answered by moto in-process."""

    def __init__(self) -> None:
        self._session: boto3.session.Session | None = None
        self._clients: dict[tuple[str, str, str], BaseClient] = {}
        self._lock = threading.Lock()

    def client(self, service: str, *, account: str, region: str) -> Any:
        """A boto3 client of `service` (botocore's name: "sqs", "dynamodb", ...) acting in `account` and `region`."""
        key = (service, account, region)
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                client = self._boto3_session().client(service, region_name=region, config=_CLIENT_CONFIG)
                client.meta.events.register("before-sign", _account_header(account))
                client.meta.events.register("before-call", _mark_own_call)
                client.meta.events.register("before-send", self._send)
                self._clients[key] = client
                long_lived.loaded()  # the service's botocore model, kept as long as the client
        return client

    def _boto3_session(self) -> boto3.session.Session:
        """The session every client comes from, and moto's dispatcher, made on first use (called locked)."""
        if self._session is None:
            import boto3
            from moto.core.models import botocore_stubber as mock_aws_stubber

            session = botocore.session.Session()
            # moto adds its `mock_aws` handler to every botocore session; under `mock_aws` it would
            # answer our requests too, and botocore calls every before-send handler: each request
            # would reach moto twice (two SQS messages for one SendMessage).
            session.unregister("before-send", mock_aws_stubber)
            self._session = boto3.session.Session(
                botocore_session=session,
                aws_access_key_id=_ACCESS_KEY_ID,
                aws_secret_access_key=_SECRET_ACCESS_KEY,
            )
        return self._session

    @staticmethod
    def reset() -> None:
        """Forget every resource of every moto backend in this process (moto's own reset)."""
        moto_state.reset()

    @staticmethod
    def call_failed(operation: OperationModel, fault: Exception) -> StatesError:
        """moto lacks the operation, or failed on these parameters: the emulator's limit, said plainly."""
        service = operation.service_model.service_name
        return StatesError(RUNTIME, f"sfn-emulator could not run {service}:{operation.name} on moto's in-memory "
                                    f"backend: {type(fault).__name__}: {fault}")

    def _send(self, request: AWSPreparedRequest, **_: Any) -> AWSResponse:
        from moto.core.botocore_stubber import MockRawResponse

        entry = moto_state.sdk_request(request)
        with moto_state.seeded(entry.seed):
            answer = moto_state.dispatcher().process_request(request)
        if answer is None:
            raise UnservedRequest(f"moto has no backend for {request.method} {request.url}")
        status, headers, body = answer
        moto_state.served(entry, status)  # a state directory keeps what changed before the answer is used
        raw = body.encode("utf-8") if isinstance(body, str) else bytes(body or b"")
        headers = dict(headers)
        # A real response says how long its body is; a HEAD response's length is the resource's, set by moto.
        if request.method != "HEAD" and not any(name.lower() == "content-length" for name in headers):
            headers["Content-Length"] = str(len(raw))
        return AWSResponse(request.url, status, headers, MockRawResponse(raw))


def _mark_own_call(context: dict[str, Any], **_: Any) -> None:
    context[OWN_CLIENT_CONTEXT_KEY] = True


def _account_header(account: str) -> Any:
    def set_account(request: AWSRequest, **_: Any) -> None:
        request.headers[MOTO_ACCOUNT_HEADER] = account

    return set_account
