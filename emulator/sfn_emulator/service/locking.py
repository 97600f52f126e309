"""How an operation method holds the registry's lock: the three kinds of operation.

Each decorated method is an operation component's, named after its botocore operation in snake_case;
it receives the caller's `Store` first, then the operation's members by their botocore names. Callers
pass those members plus optional `account=` and `region=` (default: the service's). Every kind
refuses a request that names another account's resources (`ownership`) and, for an operation that
changes something, tells the registry's observers before answering.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Protocol, TypeVar

from sfn_emulator.service.ownership import check_owned
from sfn_emulator.service.registry import Registry
from sfn_emulator.service.store import Store

F = TypeVar("F", bound=Callable[..., Any])

# Operations that change nothing a store keeps (GetActivityTask's effect is the engine's to record).
_READING = ("Describe", "List", "Get", "Validate", "Test")


class HoldsRegistry(Protocol):
    """An operation component: what the decorators need of it."""

    registry: Registry


Prepare = Callable[[Any, Store, dict[str, Any]], Any]


def _action_name(method: Callable[..., Any]) -> str:
    """The API action of an operation method: `describe_state_machine` -> `DescribeStateMachine`."""
    return "".join(word.capitalize() for word in method.__name__.split("_"))


def operation(method: F) -> F:
    """Run the whole operation under the registry's lock."""
    return _wrapped(method, prepare=None, locked=True)


def prepared_operation(prepare: Prepare) -> Callable[[F], F]:
    """Like `operation`, with `prepare(component, store, params)` run first without the lock: work a
    request needs that reads nothing shared (compiling its definition). Its refusals are kept in
    what it returns, which the method reads with `registry.prepared()` (methods take exactly their
    operation's members)."""
    return lambda method: _wrapped(method, prepare=prepare, locked=True)


def unlocked_operation(method: F) -> F:
    """For operations that call into the engine or wait (long polls, synchronous executions, task
    tokens): the method takes `registry.locked(store)` around its store work only, so the lock is
    never held while the engine works (the engine may call back into the service)."""
    return _wrapped(method, prepare=None, locked=False)


def _wrapped(method: F, *, prepare: Prepare | None, locked: bool) -> F:
    action = _action_name(method)
    writes = not action.startswith(_READING)

    def answer(component: HoldsRegistry, store: Store, params: dict[str, Any]) -> Any:
        result = method(component, store, **params)
        if writes and component.registry.observers:
            component.registry.observers.changed(store, action, params, result)
        return result

    @functools.wraps(method)
    def run(self: HoldsRegistry, *, account: str | None = None, region: str | None = None, **params: Any) -> Any:
        registry = self.registry
        store = registry.store(account, region)
        check_owned(store.account, action, params)
        if prepare is not None:
            prepared = prepare(self, store, params)  # before the lock is taken
            with registry.preparing(prepared), registry.locked(store):
                return answer(self, store, params)
        if locked:
            with registry.locked(store):
                return answer(self, store, params)
        return answer(self, store, params)

    return run  # type: ignore[return-value]
