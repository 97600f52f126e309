"""How deep executions started by running executions may nest.

Every dialect starts a nested execution through Step Functions' own `states:startExecution`
integration (an ASL Task, a Serverless Workflow subflow, an SM4C `invokeSubflow`), so a child knows
the execution that started it (`parent_execution_arn`). Two documents that start each other and wait
would otherwise nest without end. AWS documents no depth limit of its own: what ends such a chain
there is the quota on open executions, refused with `ExecutionLimitExceeded`. The emulator refuses
the same way, with AWS's error, once a chain of running executions, each started by the one before,
would be deeper than `MAX_NESTING_DEPTH`; the refused start fails the task that asked for it, and
the chain unwinds. A chain of executions that end after starting the next (AWS's "continue as new"
pattern) never grows deep: only running ancestors count.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from sfn_emulator.service.errors import ExecutionLimitExceeded
from sfn_emulator.service.store import Store

MAX_NESTING_DEPTH = 100  # running executions in one chain, the first included

# The execution whose task asks for the StartExecution under way, if one does.
_STARTED_BY: ContextVar[str | None] = ContextVar("started_by", default=None)


@contextmanager
def started_by(parent_execution_arn: str) -> Iterator[None]:
    """StartExecution calls within the block start children of `parent_execution_arn`."""
    token = _STARTED_BY.set(parent_execution_arn)
    try:
        yield
    finally:
        _STARTED_BY.reset(token)


def parent_of_new_execution(store: Store) -> str | None:
    """The execution starting the one being started (None for a start by an API caller), after
    refusing a start that would nest running executions deeper than MAX_NESTING_DEPTH."""
    parent = _STARTED_BY.get()
    depth, ancestor = 1, parent
    while ancestor is not None:
        entry = store.executions.get(ancestor)
        if entry is None or not entry.execution.is_running:
            break
        depth += 1
        if depth > MAX_NESTING_DEPTH:
            raise ExecutionLimitExceeded(
                f"Execution limit exceeded: '{parent}' is the last of {MAX_NESTING_DEPTH} running executions, "
                "each started by the one before; it cannot start another")
        ancestor = entry.execution.parent_execution_arn
    return parent
