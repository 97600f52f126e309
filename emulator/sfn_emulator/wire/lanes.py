"""Two lanes for requests, so that calls that wait can never starve the ones that answer at once.

Waitress serves each request on one of a fixed number of request threads. A long poll
(`GetActivityTask`, SWF's `PollForDecisionTask` and `PollForActivityTask`) holds its thread up to
60 seconds, a synchronous execution until its execution ends, a definition whose documents are
fetched or a TestState of an HTTP Task until the fetch's deadline: 32 of them would leave nothing for
`/_emulator/health` or the next API call. Those calls take the waiting lane instead: each runs on a
thread of its own, started for it and ended with it (a blocked Python thread costs about 16 KB of
memory), up to `WAITING_THREADS`; beyond that they queue for the next free waiting thread, never for
a request thread. Everything else keeps waitress's request threads.

While a waiting call is served its connection is parked: taken out of the socket map that
waitress's loop walks on every turn (the loop costs time per connection it watches, so 1,000 open
polls would slow every other request), and put back, with the loop woken, once the answer is written
to it. A parked connection has nothing to read (its request is whole) and nothing to write until
then, so the loop misses nothing.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any

from waitress.task import ThreadedTaskDispatcher

WAITING_THREADS = 4096  # waiting calls served at once; more queue in the waiting lane
WAITING_TARGETS = frozenset({
    "AWSStepFunctions.GetActivityTask",
    "AWSStepFunctions.StartSyncExecution",
    "AWSStepFunctions.TestState",
    "AWSStepFunctions.CreateStateMachine",
    "AWSStepFunctions.UpdateStateMachine",
    "AWSStepFunctions.ValidateStateMachineDefinition",
    "SimpleWorkflowService.PollForDecisionTask",
    "SimpleWorkflowService.PollForActivityTask",
})
_logger = logging.getLogger(__name__)


class LaneDispatcher(ThreadedTaskDispatcher):
    """Waitress's task dispatcher with a waiting lane beside its request threads."""

    def __init__(self, waiting_threads: int = WAITING_THREADS) -> None:
        super().__init__()
        self._waiting_threads = waiting_threads
        self._waiting_lock = threading.Lock()
        self._waiting_busy = 0
        self._waiting_queue: deque[Any] = deque()
        self._closed = False

    def add_task(self, task: Any) -> None:
        if not _waits(task):
            super().add_task(task)
            return
        with self._waiting_lock:
            if self._closed:
                task.cancel()
                return
            if self._waiting_busy >= self._waiting_threads:
                self._waiting_queue.append(task)
                return
            self._waiting_busy += 1
        threading.Thread(target=self._serve_waiting, args=(task,), name="sfn-emulator-waiting", daemon=True).start()

    def waiting(self) -> int:
        """How many waiting calls are being served now."""
        with self._waiting_lock:
            return self._waiting_busy

    def shutdown(self, cancel_pending: bool = True, timeout: int = 5) -> bool:
        with self._waiting_lock:
            self._closed = True
            queued = list(self._waiting_queue)
            self._waiting_queue.clear()
        for task in queued:
            task.cancel()
        return bool(super().shutdown(cancel_pending, timeout))

    def _serve_waiting(self, task: Any) -> None:
        while task is not None:
            parked = _park(task)
            try:
                task.service()
            except BaseException:
                _logger.exception("Exception when servicing %r", task)
            finally:
                if parked:
                    self._unpark(task)
            with self._waiting_lock:
                task = self._waiting_queue.popleft() if self._waiting_queue else None
                if task is None:
                    self._waiting_busy -= 1


    def _unpark(self, channel: Any) -> None:
        """Give the connection back to the loop (which then writes the answer), or close it when the
        server has stopped meanwhile."""
        with self._waiting_lock:
            closed = self._closed
        if closed:
            channel.close()
            return
        channel._map[channel._fileno] = channel
        channel.server.pull_trigger()


def _park(channel: Any) -> bool:
    """Take a waitress channel out of its loop's socket map (wasyncore's `_map` and `_fileno`); False
    when it is not there (closed meanwhile)."""
    socket_map, fileno = getattr(channel, "_map", None), getattr(channel, "_fileno", None)
    if socket_map is None or fileno is None or socket_map.get(fileno) is not channel:
        return False
    del socket_map[fileno]
    return True


def _waits(task: Any) -> bool:
    """Whether the request a waitress channel serves next is one of the calls that wait."""
    requests = getattr(task, "requests", None)
    if not requests:
        return False
    return requests[0].headers.get("X_AMZ_TARGET") in WAITING_TARGETS
