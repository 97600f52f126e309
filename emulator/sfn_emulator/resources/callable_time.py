"""Clock time for the code of a Python callable, real time for every other thread of the process.

A callable must see the emulator's clock (its `datetime.now()` agrees with the execution history)
while the test driving the emulator, its polling threads, pytest and the HTTP server keep reading
real time. freezegun cannot give that: it swaps `datetime.datetime`, `time.time` and friends for
fakes in every loaded module, for the whole process, so while any callable ran every thread read
clock time (a test's poll loop or `sfn-emulator run --timeout` gave up early). And since
`datetime.datetime` is implemented in C, its `now` cannot be rebound in place: module-level
rebinding misses every `from datetime import datetime` taken before it.

time-machine patches the C functions themselves (`datetime.now/utcnow`, `date.today`,
`time.time/time_ns/gmtime/localtime/strftime`, `clock_gettime(CLOCK_REALTIME)`; never
`monotonic` or `perf_counter`), and on each call asks the traveller on top of its stack for the
time in nanoseconds. One traveller is started once per process and never stopped; its answer
depends on the calling thread: a thread inside `clock_time` reads its invocation's clock, every
other thread reads real time through time-machine's escape hatch. So the patch is thread-safe by
construction (nothing is swapped while callables come and go) and costs other threads one
Python call per time read.

A thread a callable starts itself reads real time: the clock belongs to the invocation's thread,
as a `threading.local`, and new threads do not inherit it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone

_NANOSECONDS = 1_000_000_000
_this_thread = threading.local()
_install_lock = threading.Lock()
_installed = False
_real_time_ns: Callable[[], int] = time.time_ns  # time-machine's escape hatch once installed


@contextmanager
def clock_time(now: Callable[[], datetime]) -> Iterator[None]:
    """Within the block, the calling thread reads the time `now()` gives at entry, running on at
    wall speed from there (as the auto clock does while a task runs; so a callable timing itself
    under the manual clock still sees time pass)."""
    _install()
    start_ns = _to_ns(now())
    started = time.monotonic_ns()
    previous = getattr(_this_thread, "reading", None)
    _this_thread.reading = lambda: start_ns + (time.monotonic_ns() - started)
    try:
        yield
    finally:
        _this_thread.reading = previous


def _time_ns() -> int:
    reading = getattr(_this_thread, "reading", None)
    return reading() if reading is not None else _real_time_ns()


def _install() -> None:
    """Start the process's one traveller (at real time, so the instant before its answer is
    replaced reads right too) and make its answer the calling thread's. time-machine is imported
    here, on the first callable run: it loads pytest, a tenth of a second no other run needs."""
    global _installed, _real_time_ns
    with _install_lock:
        if _installed:
            return
        import time_machine

        _real_time_ns = time_machine.escape_hatch.time.time_ns
        traveller = time_machine.travel(datetime.now(timezone.utc), tick=True).start()
        traveller.time_ns = _time_ns  # type: ignore[method-assign]
        _installed = True


def _to_ns(moment: datetime) -> int:
    whole = moment.replace(microsecond=0)
    return int(whole.timestamp()) * _NANOSECONDS + moment.microsecond * 1000
