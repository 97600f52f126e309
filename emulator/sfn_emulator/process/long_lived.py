"""What a server loads once and keeps for its whole life stays out of the garbage collector's full passes.

CPython's full (oldest-generation) collection walks every container object alive: the emulator's
modules, botocore's service models (large trees of dicts), moto's backends, Flask's app. In a server
they never become garbage, yet each full pass re-walks them, a fixed ~0.1 s that lands on whichever
workload happens to trigger the pass (a 10,000-item Map paid it or not by chance, so its cost per
item looked out of line with larger Maps). `gc.freeze()` moves every object alive into a permanent
generation that collections skip; objects made later are collected as before.

Only a process the emulator owns freezes (`sfn-emulator serve` calls `enable()`): in a test's own
process the emulator leaves the collector alone. Objects alive at a freeze that later become cyclic
garbage are not reclaimed; freezes happen at start-up and when a big one-time load finishes, when
little else is alive.
"""

from __future__ import annotations

import gc

_enabled = False


def enable() -> None:
    """This process is the emulator's own: freeze what is loaded now, and after every later big load."""
    global _enabled
    _enabled = True
    gc.freeze()


def loaded() -> None:
    """Something kept for the process's life was just loaded (AWS service models, an app): freeze it."""
    if _enabled:
        gc.freeze()
