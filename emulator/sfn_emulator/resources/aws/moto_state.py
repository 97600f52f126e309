"""moto's backends as data: the journal of the requests that changed them, replayed into a fresh moto
on load. It is what lets the AWS services behind integrations (S3 buckets and objects, SQS queues and
messages, DynamoDB tables and items, SNS, EventBridge, Secrets Manager, ...) survive a restart and
travel in snapshots.

Why a journal and not a copy of moto's objects: a copy of Python objects (pickle) runs code when it
is loaded, and anyone who can write a state directory or send a snapshot could choose that code. A
journal entry is a request, as data: method, URL or WSGI variables, headers, body bytes and the seed
of moto's randomness while it ran. Loading checks every entry's shape, then hands each request to
moto's own request handlers, as a client would; nothing in it is ever called, imported or evaluated.

Both ways into moto record their requests here, where they reach moto: the integrations' botocore
clients (`sfn_emulator.resources.aws.backends`, replayed through moto's botocore dispatcher) and the
HTTP passthrough (`sfn_emulator.wire.aws_passthrough`, replayed through moto's server app). A
request is kept when it may change something (any method but GET, HEAD and OPTIONS) and moto
answered it without an error (status below 400); observers hear it before its answer is used. A
reset of one account is an entry too; a reset of everything empties the journal.

Identifiers moto draws (SQS message ids, SNS subscription ARNs, Secrets Manager ARN suffixes, ...)
come from moto's one random generator; while a request runs, the emulator gives its thread a
generator of its own seeded by the entry's seed, so a replay draws the same identifiers. What moto
takes from the wall clock (creation dates, SQS visibility deadlines) and SQS receipt handles
(drawn from Python's own `random`) are new after a replay.

    {"format": "sfn-emulator-moto-journal", "version": 1, "requests": [entry, ...]}
    entry = {"type": "sdk", "method", "url", "headers", "body" (base64), "seed"}
          | {"type": "http", "environ" (its CGI variables), "body" (base64), "seed"}
          | {"type": "reset", "account"}
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from random import Random
from typing import TYPE_CHECKING, Any, Protocol, Union

import msgspec
from msgspec import Struct

if TYPE_CHECKING:
    from botocore.awsrequest import AWSPreparedRequest

FORMAT = "sfn-emulator-moto-journal"
VERSION = 1
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})  # HTTP: requests that change nothing
_NOT_STATE = ("/moto-api/recorder/",)  # moto's own request recorder acts on files, not on backends


class SdkRequest(Struct, tag="sdk", frozen=True):
    """A request from an integration's botocore client, as moto's botocore dispatcher received it."""

    method: str
    url: str
    headers: dict[str, str]
    body: bytes
    seed: int


class HttpRequest(Struct, tag="http", frozen=True):
    """A request through the HTTP passthrough: its WSGI environment's CGI variables and its body."""

    environ: dict[str, str]
    body: bytes
    seed: int


class AccountReset(Struct, tag="reset", frozen=True):
    """Every backend of one account forgotten (`POST /_emulator/reset` with an account)."""

    account: str


Entry = Union[SdkRequest, HttpRequest, AccountReset]
_ENTRY_DECODER = msgspec.json.Decoder(Entry)


class MotoStateError(ValueError):
    """A journal that cannot be loaded; the message says why."""


class JournalObserver(Protocol):
    """Follows moto's journal (persistence's keeper, the local EventBridge's schedules)."""

    def journal_changed(self, entry: Entry | None) -> None:
        """`entry` was kept (None: every backend was forgotten); told on the thread that served it,
        before its answer is used."""


# Those following the journal: the process's, as moto's backends and the journal are.
_observers: tuple[JournalObserver, ...] = ()
_journal: list[Entry] = []  # the process's: what a snapshot carries
_journal_lock = threading.Lock()  # observers hear entries in the journal's order


def observe(observer: JournalObserver) -> None:
    global _observers
    _observers += (observer,)  # one assignment: `_tell` reads the tuple it finds (no lock: an observer may stop)


def stop_observing(observer: JournalObserver) -> None:
    global _observers
    _observers = tuple(known for known in _observers if known is not observer)


def _tell(entry: Entry | None) -> None:
    with _journal_lock:
        if entry is None:
            _journal.clear()
        else:
            _journal.append(entry)
        for observer in _observers:
            observer.journal_changed(entry)


def journal() -> list[Entry]:
    """The requests that built moto's backends as they stand, oldest first."""
    with _journal_lock:
        return list(_journal)


# -- recording ------------------------------------------------------------------------------------

def sdk_request(request: AWSPreparedRequest) -> SdkRequest:
    """The journal entry of a botocore request about to reach moto (its body read into bytes once,
    and given back to the request as bytes)."""
    body = request.body
    if hasattr(body, "read"):
        body = body.read()
    data = body.encode("utf-8") if isinstance(body, str) else bytes(body or b"")
    request.body = data
    headers = {str(name): value.decode("latin-1") if isinstance(value, bytes) else str(value)
               for name, value in request.headers.items()}
    return SdkRequest(str(request.method), str(request.url), headers, data, _fresh_seed())


def http_request(environ: dict[str, Any]) -> HttpRequest:
    """The journal entry of a WSGI request about to reach moto; its body is read and put back."""
    length = str(environ.get("CONTENT_LENGTH") or "")
    stream = environ.get("wsgi.input")
    if stream is None:
        body = b""
    elif length.isdigit():
        body = stream.read(int(length))
    elif environ.get("wsgi.input_terminated"):  # a chunked body the server ends itself
        body = stream.read()
    else:
        body = b""
    environ["wsgi.input"] = io.BytesIO(body)
    cgi = {key: value for key, value in environ.items() if key.isupper() and isinstance(value, str)}
    return HttpRequest(cgi, body, _fresh_seed())


def served(entry: SdkRequest | HttpRequest, status: int) -> None:
    """moto answered `entry` with `status` (called before the answer is used): kept if it may have changed something."""
    method = entry.method if isinstance(entry, SdkRequest) else entry.environ.get("REQUEST_METHOD", "GET")
    path = entry.url if isinstance(entry, SdkRequest) else entry.environ.get("PATH_INFO", "")
    if method.upper() not in SAFE_METHODS and status < 400 and not any(part in path for part in _NOT_STATE):
        _tell(entry)


def reset(account: str | None = None) -> None:
    """Forget every moto backend's resources in this process, or only those of `account`, and say so."""
    _reset_backends(account)
    _tell(AccountReset(account) if account is not None else None)


def _reset_backends(account: str | None) -> None:
    from moto.core.base_backend import BackendDict, backend_lock
    from moto.moto_api._internal.models import moto_api_backend

    if account is None:
        moto_api_backend.reset()
        return
    with backend_lock:
        for backends in list(BackendDict._instances):
            if account in backends.keys():
                backends[account].reset()


# -- moto's randomness, per request -----------------------------------------------------------------

_seeds = threading.local()


def _fresh_seed() -> int:
    import secrets  # (with hmac and hashlib: on the first request, not with the Python API)

    return secrets.randbits(63)


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    """While the block runs, moto's identifiers drawn on this thread come from a generator seeded by `seed`."""
    _install_thread_seeding()
    previous = getattr(_seeds, "generator", None)
    _seeds.generator = Random(seed)
    try:
        yield
    finally:
        _seeds.generator = previous


def _install_thread_seeding() -> None:
    """Make moto's one generator (`moto.moto_api._internal.mock_random`) draw from the calling
    thread's own seeded generator when it has one (once; moto's own behaviour otherwise)."""
    from moto.moto_api._internal import mock_random
    from moto.moto_api._internal.moto_random import MotoRandom

    if type(mock_random) is not MotoRandom:
        return  # done already

    class ThreadSeeded(MotoRandom):
        def random(self) -> float:
            generator = getattr(_seeds, "generator", None)
            return generator.random() if generator is not None else super().random()

        def getrandbits(self, k: int) -> int:
            generator = getattr(_seeds, "generator", None)
            return generator.getrandbits(k) if generator is not None else super().getrandbits(k)

    mock_random.__class__ = ThreadSeeded


# -- the journal as a document, and back into moto -----------------------------------------------------

def document(entries: list[Entry]) -> dict[str, Any]:
    """The journal as JSON-ready data (bodies in base64)."""
    return {"format": FORMAT, "version": VERSION, "requests": msgspec.to_builtins(entries)}


def entries_of(journal: Any) -> list[Entry]:
    """The entries of a journal document, each checked for its shape; MotoStateError otherwise.
    Nothing is run: a journal is data."""
    if not isinstance(journal, dict) or journal.get("format") != FORMAT:
        raise MotoStateError(f'moto\'s state is not a journal of requests (a JSON object with "format": "{FORMAT}")')
    version = journal.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= VERSION:
        raise MotoStateError(f"moto's journal has format version {version!r:.40}; this sfn-emulator reads {VERSION}")
    try:
        return msgspec.convert(journal.get("requests"), list[Entry])
    except msgspec.ValidationError as error:
        raise MotoStateError(f"moto's journal is malformed: {error}") from None


def encode_entry(entry: Entry) -> bytes:
    return msgspec.json.encode(entry)


def decode_entry(text: str | bytes) -> Entry:
    """One stored entry; MotoStateError when it is not one."""
    try:
        return _ENTRY_DECODER.decode(text)
    except msgspec.DecodeError as error:
        raise MotoStateError(f"a request in moto's journal is malformed: {error}") from None


def load(entries: list[Entry]) -> list[str]:
    """Make moto's backends those the journal's requests build: every backend emptied, then each
    request handed to moto again, in order, with its seed. Observers hear nothing. Answers what
    moto refused on the way (a request a later moto no longer answers), each named."""
    with _journal_lock:
        _journal[:] = entries
    if not entries and "moto.core.base_backend" not in sys.modules:
        return []  # moto never loaded: its backends are empty already
    _reset_backends(None)
    refused: list[str] = []
    for number, entry in enumerate(entries, 1):
        try:
            status = _replay(entry)
        except Exception as error:  # noqa: BLE001 - one request moto cannot take must not lose the others
            refused.append(f"request {number}: {type(error).__name__}: {error}")
            continue
        if status >= 400:
            refused.append(f"request {number}: moto answered {status}")
    return refused


def _replay(entry: Entry) -> int:
    if isinstance(entry, AccountReset):
        _reset_backends(entry.account)
        return 200
    with seeded(entry.seed):
        if isinstance(entry, SdkRequest):
            return _replay_sdk(entry)
        return _replay_http(entry)


def _replay_sdk(entry: SdkRequest) -> int:
    from botocore.awsrequest import AWSPreparedRequest, HTTPHeaders

    headers = HTTPHeaders()
    for name, value in entry.headers.items():
        headers[name] = value
    answer = dispatcher().process_request(AWSPreparedRequest(entry.method, entry.url, headers, entry.body, False))
    if answer is None:
        raise LookupError(f"moto has no backend for {entry.method} {entry.url}")
    return int(answer[0])


def _replay_http(entry: HttpRequest) -> int:
    statuses: list[int] = []
    environ: dict[str, Any] = {**entry.environ, "wsgi.input": io.BytesIO(entry.body), "wsgi.errors": sys.stderr,
                               "wsgi.url_scheme": "http", "wsgi.version": (1, 0), "wsgi.multithread": True,
                               "wsgi.multiprocess": False, "wsgi.run_once": False}
    answer = server_app()(environ, lambda status, headers, *_: statuses.append(int(status.split()[0])))
    for _ in answer:  # the body is not needed, only its making
        pass
    close = getattr(answer, "close", None)
    if close is not None:
        close()
    return statuses[0] if statuses else 500


_made: dict[str, Any] = {}
_made_lock = threading.Lock()


def dispatcher() -> Any:
    """moto's botocore request dispatcher, the one `mock_aws` uses (made on first use)."""
    with _made_lock:
        if "dispatcher" not in _made:
            from moto.core.botocore_stubber import BotocoreStubber

            _made["dispatcher"] = BotocoreStubber()
        return _made["dispatcher"]


def server_app() -> Any:
    """moto's multi-service server WSGI app (made, and moto imported, on first use)."""
    with _made_lock:
        if "server" not in _made:
            from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

            _made["server"] = DomainDispatcherApplication(create_backend_app)
        return _made["server"]
