"""jq evaluations in worker processes (`jq_worker`), bounded in time and memory.

Why not in-process: the `jq` binding runs libjq while holding the GIL, so one program that never
ends (`def f: f; f`, `repeat(.)`) would stop every thread of the server, its HTTP answers and its
shutdown included. Here the calling thread only waits on a pipe: past `TIME_LIMIT_SECONDS` the
worker is killed and the evaluation fails; a worker that dies (libjq aborts when it reaches
`MEMORY_LIMIT_BYTES`) fails its evaluation the same way. Either way the next evaluation gets a
fresh worker. Workers are started on first use, kept idle for the next evaluation (each caches
its compiled programs), end when their stdin closes, and are killed when the server exits.
"""

from __future__ import annotations

import atexit
import json
import math
import os
import select
import subprocess
import sys
import threading
import time
from typing import Any

TIME_LIMIT_SECONDS = 10.0  # wall time of one evaluation
MEMORY_LIMIT_BYTES = 1 << 30  # address space of a worker
START_LIMIT_SECONDS = 60.0  # starting Python and loading libjq, on a loaded machine
_MAX_IDLE_WORKERS = 4


class JqEvaluationFailure(Exception):
    """An evaluation that did not produce a value: the message completes "The jq expression ... "."""


class _Worker:
    """One worker process and the pipe ends the parent holds."""

    def __init__(self) -> None:
        cpu_seconds = math.ceil(TIME_LIMIT_SECONDS) + 5  # a backstop above the wall-time limit
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "sfn_emulator.dialects.sm4c.jq_worker", str(MEMORY_LIMIT_BYTES), str(cpu_seconds)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0,
                start_new_session=True,  # a Ctrl-C meant for the server is the server's to handle
            )
        except OSError as error:  # no process to be had (limits of the machine)
            raise JqEvaluationFailure(f"could not be evaluated: no jq worker could start ({error})") from None
        try:
            self.read_line(time.monotonic() + START_LIMIT_SECONDS, f"could not start within {START_LIMIT_SECONDS:g} seconds")
        except JqEvaluationFailure:
            self.kill()
            raise

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
        except (BrokenPipeError, ValueError):  # the worker is gone
            raise JqEvaluationFailure(self._ending()) from None
        overrun = f"did not finish within {TIME_LIMIT_SECONDS:g} seconds"
        return json.loads(self.read_line(time.monotonic() + TIME_LIMIT_SECONDS, overrun))

    def read_line(self, deadline: float, overrun: str) -> bytes:
        """The worker's next line; a failure when it dies or says nothing before `deadline`."""
        assert self.process.stdout is not None
        pipe = self.process.stdout.fileno()
        received = bytearray()
        while not received.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([pipe], [], [], remaining)[0]:
                raise JqEvaluationFailure(overrun)
            chunk = os.read(pipe, 1 << 16)
            if not chunk:
                raise JqEvaluationFailure(self._ending())
            received += chunk
        return bytes(received)

    def _ending(self) -> str:
        code = self.process.wait()
        return (f"failed: its evaluation stopped abnormally (exit status {code}), "
                f"as when it needs more than the {MEMORY_LIMIT_BYTES >> 20} MiB allowed")

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


class _Pool:
    """Idle workers for the next evaluations; a worker that failed one is never reused."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()

    def evaluate(self, program: str, data: Any) -> tuple[bool, Any]:
        """(True, first output) or (False, None) when the program outputs nothing."""
        worker = self._take()
        try:
            answer = worker.ask({"program": program, "input": data})
        except JqEvaluationFailure:
            self._discard(worker)
            raise
        self._give_back(worker)
        if "error" in answer:
            raise JqEvaluationFailure(f"failed: {answer['error']}")
        return ("output" in answer), answer.get("output")

    def _take(self) -> _Worker:
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        worker = worker or _Worker()
        with self._lock:
            self._busy.add(worker)
        return worker

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            self._busy.discard(worker)
            if len(self._idle) < _MAX_IDLE_WORKERS:
                self._idle.append(worker)
                return
        worker.kill()

    def _discard(self, worker: _Worker) -> None:
        with self._lock:
            self._busy.discard(worker)
        worker.kill()

    def stop(self) -> None:
        """Kill every worker, busy ones included: the process is ending. A busy worker's pipes stay
        open for the thread reading them, which sees its end and discards it."""
        with self._lock:
            idle, self._idle, busy = self._idle, [], list(self._busy)
        for worker in idle:
            worker.kill()
        for worker in busy:
            worker.process.kill()


_POOL = _Pool()
atexit.register(_POOL.stop)


def stop_workers() -> None:
    """End every worker now (the next evaluation starts a fresh one, with the limits then in force)."""
    _POOL.stop()


def evaluate_first(program: str, data: Any) -> tuple[bool, Any]:
    """The first output of the jq `program` on `data` in a worker: (True, value), or (False, None)
    when it outputs nothing. Raises JqEvaluationFailure when it fails, overruns or dies."""
    return _POOL.evaluate(program, data)
