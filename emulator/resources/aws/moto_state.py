"""moto's backends as one versioned blob, and back: what lets the AWS services behind integrations
(S3 buckets and objects, SQS queues and messages, DynamoDB tables and items, SNS, EventBridge,
Secrets Manager...) survive a restart and travel in snapshots.

moto keeps each service's state in a process-wide `BackendDict` (account -> region -> backend
object). The blob holds, for every backend in use, the pickle of that backend object, found again on
load by the module attribute that holds its `BackendDict` (`moto.s3.models.s3_backends`). What pickle
cannot copy is given a reduction private to our Pickler (its own dispatch table and
`reducer_override`, so nothing else in the process pickles differently): thread primitives (SQS's
queues hold an `RLock`) are recreated empty; weak-value indexes (Lambda's functions by ARN) keep
their values; a `defaultdict` whose factory is a lambda making an empty container (SSM's tags)
gets a factory copying that container; cryptography's keys (KMS) travel as their DER bytes. A backend
that still cannot be pickled, or whose class's pickle does not load back (SSM's parameter store with
moto 5.2), is left out (named in `Dumped.skipped`), never the whole blob.

    blob = <one JSON header line> b"\n" <pickle>
    header = {"format": "sfn-emulator-moto-state", "version": 1, "moto": "<moto's version>", "sha256": "<of the pickle>"}

Loading a blob runs pickle: load only blobs you trust (your own state directory, your team's snapshots).

`changed()` is called after every moto request that may change a backend (not GET or HEAD) by both
ways into moto, the integrations' clients and the HTTP passthrough; a state directory listens to it.
"""

from __future__ import annotations

import copy
import copyreg
import hashlib
import importlib
import io
import json
import pickle
import sys
import threading
import weakref
from collections import defaultdict
from typing import Any, Callable

from msgspec import Struct, field

FORMAT = "sfn-emulator-moto-state"
VERSION = 1
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})  # HTTP: requests that change nothing

_listeners: list[Callable[[], None]] = []


class MotoStateError(ValueError):
    """A blob that cannot be loaded; the message says why."""


def listen(listener: Callable[[], None]) -> None:
    """Call `listener` after every moto request that may have changed a backend."""
    _listeners.append(listener)


def stop_listening(listener: Callable[[], None]) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


def changed(method: str) -> None:
    """A request with HTTP `method` was answered by moto (called before its answer is used)."""
    if method.upper() not in SAFE_METHODS:
        for listener in list(_listeners):
            listener()


def _recreated(kind: Callable[[], Any]) -> Callable[[Any], tuple[Callable[[], Any], tuple[()]]]:
    return lambda _: (kind, ())


_THREAD_PRIMITIVES: dict[type, Callable[[], Any]] = {
    type(threading.Lock()): threading.Lock,
    type(threading.RLock()): threading.RLock,
    threading.Condition: threading.Condition,
    threading.Event: threading.Event,
    threading.Semaphore: threading.Semaphore,
}


class _CopyOf:
    """A `defaultdict`'s factory that pickle cannot name (a lambda), as what it makes: a copy of the
    empty container it made once."""

    def __init__(self, made: Any) -> None:
        self.made = made

    def __call__(self) -> Any:
        return copy.deepcopy(self.made)


def _reduce_weak_values(mapping: weakref.WeakValueDictionary[Any, Any]) -> tuple[Any, ...]:
    # Its values are pickled once, shared with where the backend holds them strongly (moto's indexes).
    return weakref.WeakValueDictionary, (dict(mapping.items()),)


class _BackendPickler(pickle.Pickler):
    """A Pickler for moto's backends: thread primitives recreated empty, weak-value indexes kept,
    lambda default factories of empty containers and cryptography's keys copied by what they are.
    Its own dispatch table and `reducer_override`: nothing else in the process pickles differently."""

    dispatch_table = {**copyreg.dispatch_table, **{kind: _recreated(make) for kind, make in _THREAD_PRIMITIVES.items()},
                      weakref.WeakValueDictionary: _reduce_weak_values}

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is defaultdict and _unnamed(obj.default_factory):
            made = obj.default_factory()  # type: ignore[misc]
            if isinstance(made, (dict, list, set)) and not made:
                return defaultdict, (_CopyOf(made),), None, None, iter(obj.items())
        key = _key_reduction(obj)
        return key if key is not None else NotImplemented


def _unnamed(factory: Any) -> bool:
    """Whether pickle cannot find `factory` by its name (a lambda or a function defined in a function)."""
    return factory is not None and "<" in getattr(factory, "__qualname__", "")


def _key_reduction(obj: Any) -> tuple[Any, ...] | None:
    """A cryptography private or public key (KMS's keys) as its DER bytes, loaded back by cryptography."""
    module = type(obj).__module__
    if not module.startswith("cryptography."):
        return None
    from cryptography.hazmat.primitives import serialization

    if hasattr(obj, "private_bytes") and hasattr(obj, "public_key"):
        der = obj.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        return _private_key, (der,)
    if hasattr(obj, "public_bytes") and hasattr(obj, "verify"):
        der = obj.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        return _public_key, (der,)
    return None


def _private_key(der: bytes) -> Any:
    """(Named here: cryptography's loaders live in a compiled module pickle cannot import by name.)"""
    from cryptography.hazmat.primitives import serialization

    return serialization.load_der_private_key(der, None)


def _public_key(der: bytes) -> Any:
    from cryptography.hazmat.primitives import serialization

    return serialization.load_der_public_key(der)


def _pickle(value: Any) -> bytes:
    buffer = io.BytesIO()
    _BackendPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buffer.getvalue()


class Dumped(Struct):
    blob: bytes
    skipped: list[str] = field(default_factory=list)  # "service account region: why" of backends left out


def _moto_version() -> str:
    import moto

    return str(moto.__version__)


def _holder(backends: Any) -> tuple[str, str] | None:
    """(module, attribute) holding a BackendDict, where loading finds it again."""
    module = sys.modules.get(backends.backend.__module__)
    for name, value in vars(module or object()).items():
        if value is backends:
            return backends.backend.__module__, name
    return None


def dump() -> Dumped:
    """Every backend moto has in this process, as a blob (moto imported only when it already is)."""
    if "moto.core.base_backend" not in sys.modules:
        return Dumped(_encode([]))
    from moto.core.base_backend import BackendDict, backend_lock

    services: list[tuple[str, str, dict[str, dict[str, bytes]]]] = []
    skipped: list[str] = []
    with backend_lock:
        instances = list(BackendDict._instances)
    for backends in instances:
        holder = _holder(backends)
        if holder is None:
            skipped.append(f"{backends.service_name}: no module attribute holds its backends")
            continue
        accounts: dict[str, dict[str, bytes]] = {}
        for account, regions in list(backends.items()):
            for region, backend in list(regions.items()):
                try:
                    data = _pickle(backend)
                    _check_loads_back(type(backend), data)
                except Exception as error:  # noqa: BLE001 - one service's limit must not lose the others
                    skipped.append(f"{backends.service_name} {account} {region}: {type(error).__name__}: {error}")
                else:
                    accounts.setdefault(account, {})[region] = data
        services.append((*holder, accounts))
    return Dumped(_encode(services), skipped)


_LOADS_BACK: dict[type, BaseException | None] = {}  # per backend class: why its pickle does not load back


def _check_loads_back(kind: type, data: bytes) -> None:
    """Raise when a backend of this class, once pickled, does not load back (tried once per class:
    a class whose pickle loads is sound whatever it holds later)."""
    if kind not in _LOADS_BACK:
        try:
            pickle.loads(data)
            _LOADS_BACK[kind] = None
        except Exception as error:  # noqa: BLE001 - e.g. a dict subclass whose __init__ takes arguments
            _LOADS_BACK[kind] = error
    problem = _LOADS_BACK[kind]
    if problem is not None:
        raise TypeError(f"its pickle does not load back ({type(problem).__name__}: {problem})")


def _encode(services: list[tuple[str, str, dict[str, dict[str, bytes]]]]) -> bytes:
    payload = pickle.dumps(services, protocol=pickle.HIGHEST_PROTOCOL)
    header = {"format": FORMAT, "version": VERSION, "moto": _moto_version() if services else None,
              "sha256": hashlib.sha256(payload).hexdigest()}
    return json.dumps(header, separators=(",", ":")).encode("utf-8") + b"\n" + payload


def _decode(blob: bytes) -> tuple[str | None, list[tuple[str, str, dict[str, dict[str, bytes]]]]]:
    """(the moto version that wrote it, its services); MotoStateError when it is not a sound blob."""
    line, newline, payload = bytes(blob).partition(b"\n")
    try:
        header = json.loads(line)
    except ValueError:
        header = None
    if not newline or not isinstance(header, dict) or header.get("format") != FORMAT:
        raise MotoStateError("moto's state is not an sfn-emulator moto-state blob")
    version = header.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise MotoStateError(f"moto's state has format version {version!r}; this sfn-emulator reads up to {VERSION}")
    if header.get("sha256") != hashlib.sha256(payload).hexdigest():
        raise MotoStateError("moto's state is corrupted: it does not match its sha256 digest")
    try:
        services = pickle.loads(payload)
        return header.get("moto"), [(module, name, accounts) for module, name, accounts in services]
    except Exception as error:  # noqa: BLE001 - any failure means the blob cannot be used
        raise MotoStateError(f"moto's state cannot be read: {type(error).__name__}: {error}") from None


def check(blob: bytes) -> None:
    """MotoStateError when `blob` could not be loaded (nothing in moto changes)."""
    _decode(blob)


def load(blob: bytes | None) -> None:
    """Make moto's backends exactly the blob's (every backend empty when `blob` is None); on
    MotoStateError moto is left as it was."""
    written_by, services = _decode(blob) if blob is not None else (None, [])
    if blob is None and "moto.core.base_backend" not in sys.modules:
        return  # moto never loaded: its backends are empty already
    try:
        holders = [getattr(importlib.import_module(module), name) for module, name, _ in services]
        _unpickled(services)  # tried before anything changes; made again after the reset, which
        # disposes of every tracked model instance, those just unpickled included (S3's keys)
    except Exception as error:  # noqa: BLE001 - a moto that cannot take this blob back
        raise MotoStateError(f"moto's state (written by moto {written_by}) cannot be loaded by moto "
                             f"{_moto_version()}: {type(error).__name__}: {error}") from None
    from moto.moto_api._internal.models import moto_api_backend

    moto_api_backend.reset()
    for holder, backends in zip(holders, _unpickled(services)):
        for account, region, backend in backends:
            dict.__setitem__(holder[account], region, backend)  # holder[account] registers the service in use


def _unpickled(services: list[tuple[str, str, dict[str, dict[str, bytes]]]]) -> list[list[tuple[str, str, Any]]]:
    return [[(account, region, pickle.loads(data)) for account, regions in accounts.items()
             for region, data in regions.items()] for _, _, accounts in services]
