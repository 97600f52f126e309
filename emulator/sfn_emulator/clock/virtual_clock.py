"""The single source of time for the whole emulator.

Modes:
- ``auto``: time follows the wall clock only while something needs it (a task resource runs, or
  someone outside races a deadline); otherwise it stands still, and when nothing can run the
  engine jumps it to the next timer it may skip (see `Engine` for the rules). So the engine's own
  work takes no time and every timestamp is reproducible to the millisecond.
- ``manual``: time stands still until `advance` or `set` moves it.
- ``real``: wall time, with Wait-like delays scaled by ``scale`` (AWS Step Functions Local's
  ``WAIT_TIME_SCALE``: 0.5 makes a 10 s wait take 5 s of wall time; virtual time then runs
  ``1/scale`` times faster than the wall clock, so timestamps still show the full 10 s).

Timestamps have millisecond precision, as AWS's do.

Time moves through every due moment (issue 28, rule 11): `advance` and `set` do not put the clock at
their target at once; they name a destination, and the engine (the listener) steps the clock to
each due timer on the way, in order, lets what it woke run at that instant, and only then moves on,
so every Wait, retry, timeout and heartbeat deadline fires at its own time and what follows from it
counts from there, as on AWS, where time passes through every instant.

The latest instant is `LATEST` (the last millisecond of year 9999, the end of ISO-8601's and
Python's range). A delay that would end after it ends `NEVER`: no clock reaches that moment, so
such a timer stays pending instead of failing with an OverflowError.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Callable, Protocol

MODES = ("auto", "manual", "real")
LATEST = datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=timezone.utc)
NEVER = datetime.max.replace(tzinfo=timezone.utc)  # later than any clock time (LATEST is truncated to millis)


def after(moment: datetime, seconds: float | timedelta) -> datetime:
    """`moment` plus a delay: the due time of a Wait, retry, timeout or heartbeat deadline; NEVER
    when that lies beyond LATEST, which no clock reaches."""
    try:
        due = moment + (seconds if isinstance(seconds, timedelta) else timedelta(seconds=seconds))
    except OverflowError:
        return NEVER
    return due if due <= LATEST else NEVER


class TimeListener(Protocol):
    """What the clock tells when time is moved by hand (the engine fires due timers)."""

    def run_until_idle(self, timeout: float | None = None) -> bool: ...

    def wake(self) -> None: ...


# Bound at import, before any freezer starts: freezegun leaves the names of this module alone (it is
# on the ignore list), so reading it never goes through freezegun's frame inspection.
_real_monotonic = time.monotonic


def wall_monotonic() -> float:
    """Wall-clock seconds for network-style waits (long polls) and the engine's turns; real even
    while callables run frozen."""
    return _real_monotonic()


def truncate_to_millis(moment: datetime) -> datetime:
    return moment.replace(microsecond=moment.microsecond - moment.microsecond % 1000)


def parse_time(text: str) -> datetime:
    """Parse an ISO-8601 time such as ``2024-01-01T00:00:00Z``; naive times are taken as UTC."""
    moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def format_time(moment: datetime) -> str:
    """``2024-01-01T00:00:00.000Z``: the form AWS uses in the Context Object and in our clock API."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class Clock:
    """Virtual time: an anchor (virtual instant, wall monotonic instant) plus the mode's rate."""

    def __init__(self, mode: str = "auto", start: datetime | None = None, scale: float = 1.0) -> None:
        if mode not in MODES:
            raise ValueError(f"clock mode must be one of {', '.join(MODES)}, not {mode!r}")
        if scale < 0:
            raise ValueError(f"wait time scale must not be negative, not {scale}")
        self._lock = threading.RLock()
        self._mode = mode
        self._scale = scale
        self._anchor_virtual = truncate_to_millis(start or datetime.now(timezone.utc))
        self._anchor_wall = time.monotonic()
        self._held = False  # auto mode: standing still until the engine releases it
        self._destination: datetime | None = None  # where `advance`/`set` move to, step by step
        self._held_before_move = False
        self._listener: TimeListener | None = None
        self._watchers: list[Callable[[], None]] = []  # told whenever time is moved (long polls wake)

    # -- reading -----------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        return self._mode

    @mode.setter
    def mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"clock mode must be one of {', '.join(MODES)}, not {mode!r}")
        with self._lock:
            self._reanchor(self.now())
            self._mode = mode
        self._notify()

    @property
    def scale(self) -> float:
        return self._scale

    def now(self) -> datetime:
        with self._lock:
            if self._mode == "manual" or self._held:
                return self._anchor_virtual
            elapsed = time.monotonic() - self._anchor_wall
            if self._mode == "real" and self._scale != 1.0 and self._scale > 0:
                elapsed /= self._scale
            return truncate_to_millis(min(after(self._anchor_virtual, elapsed), LATEST))

    def wall_seconds_until(self, moment: datetime) -> float | None:
        """Wall-clock seconds until virtual time reaches `moment` by itself (None while it stands still)."""
        if self._mode == "manual" or self._held:
            return None
        seconds = max(0.0, (moment - self.now()).total_seconds())
        if self._mode == "real" and self._scale > 0:
            seconds *= self._scale
        return seconds

    # -- moving --------------------------------------------------------------------------------
    def attach(self, listener: TimeListener) -> None:
        """Bind the engine that owns the timers: moving time by hand lets it fire what fell due.
        In auto mode the engine then decides when time flows: it starts standing still."""
        with self._lock:
            self._listener = listener
            self._held = self._mode == "auto"

    def detach(self, listener: TimeListener) -> None:
        """The engine closes: a move under way ends at its destination, later ones go there at once."""
        with self._lock:
            if self._listener is listener:
                self._listener = None
                if self._destination is not None:
                    self._reanchor(self._destination)
                    self._held = self._held_before_move
                    self._destination = None

    def watch(self, moved: Callable[[], None]) -> None:
        """Call `moved` (from the moving thread, holding no lock of the clock: it must only signal)
        whenever time is moved at once: a jump, `advance`, `set` or a change of mode."""
        self._watchers.append(moved)

    def jump_to(self, moment: datetime) -> None:
        """Move time forward to `moment` (used by the engine in auto mode) and hold it there until
        `release`; never backwards."""
        with self._lock:
            if moment > self.now():
                self._reanchor(moment)
                self._held = True
        self._tell_watchers()

    def hold(self) -> None:
        """Stop time where it is until `release` (the engine's call, in auto mode, when nothing needs time)."""
        with self._lock:
            if not self._held:
                self._reanchor(self.now())
                self._held = True

    def release(self) -> None:
        """Let time follow the wall clock again from where it was held (the engine's call when a
        task resource starts or someone outside races a deadline)."""
        with self._lock:
            if self._held:
                self._held = False
                self._anchor_wall = time.monotonic()

    @property
    def moving(self) -> bool:
        """Is a move by hand (`advance`, `set`) still on its way to its destination?"""
        return self._destination is not None

    def advance(self, seconds: float | timedelta) -> datetime:
        """Move time forward through every timer due on the way (each fires at its own time) and
        run what they woke until it blocks. Two advances add up, even while the first is on its way."""
        delta = seconds if isinstance(seconds, timedelta) else timedelta(seconds=seconds)
        if delta < timedelta(0):
            raise ValueError("the clock cannot be moved backwards")
        with self._lock:
            target = after(max(self._destination or self.now(), self.now()), delta)
            if target is NEVER:
                raise ValueError(f"the clock cannot be moved past {format_time(LATEST)}")
            self._move_to(target)
        self._notify()
        return target

    def set(self, moment: datetime) -> datetime:
        """Move time forward to `moment` (refused when it lies in the past), as `advance` does."""
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        with self._lock:
            moment = truncate_to_millis(moment.astimezone(timezone.utc))
            if moment < self.now():
                raise ValueError(f"the clock cannot be set backwards (now {format_time(self.now())})")
            self._move_to(max(moment, self._destination or moment))
        self._notify()
        return moment

    def run_until_idle(self, timeout: float | None = None) -> bool:
        """Block until every execution that can run has run and is blocked or finished."""
        return self._listener.run_until_idle(timeout) if self._listener else True

    def step_towards(self, next_due: datetime | None) -> bool:
        """The engine's step of a move by hand (called when nothing can run at this instant): to
        `next_due`, the next timer, when it comes before the destination, standing still there;
        else to the destination, where the move ends. False when no move is under way."""
        with self._lock:
            destination = self._destination
            if destination is None:
                return False
            if next_due is not None and next_due < destination:
                if next_due > self.now():
                    self._reanchor(next_due)
                    self._held = True
            else:
                if destination > self.now():
                    self._reanchor(destination)
                self._held = self._held_before_move
                self._destination = None
        self._tell_watchers()
        return True

    def _move_to(self, moment: datetime) -> None:
        """Move by hand: with an engine attached, name the destination it steps the clock to (see
        `step_towards`); without one, go there at once. Time stands still after if it stood still
        before (auto mode: what falls due then runs at exactly its instant), and flows on otherwise."""
        if self._listener is not None:
            if self._destination is None:
                self._held_before_move = self._held
            self._destination = moment
            return
        held = self._held
        self._reanchor(moment)
        self._held = held

    def _reanchor(self, moment: datetime) -> None:
        self._anchor_virtual = truncate_to_millis(moment)
        self._anchor_wall = time.monotonic()
        self._held = False

    def _tell_watchers(self) -> None:
        for moved in list(self._watchers):
            moved()

    def _notify(self) -> None:
        self._tell_watchers()
        if self._listener:
            self._listener.wake()
            self._listener.run_until_idle()
