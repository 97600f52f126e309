"""The process that runs SM4C's jq programs, so that libjq (which holds the GIL while it computes)
never stops the server's threads.

Started by `jq_sandbox` as `python -m sfn_emulator.dialects.sm4c.jq_worker MEMORY_BYTES CPU_SECONDS`.
It says `{"ready": true}` once jq is loaded, then answers each request line `{"program": P, "input": V}`
on stdin with one line on stdout: `{"output": FIRST}`, `{}` when the program outputs nothing, or
`{"error": MESSAGE}`. Only the first output is computed. End of stdin ends it.

Its own bounds: an address-space limit (a memory bomb makes libjq abort instead of eating the
machine) and, armed afresh before each evaluation, a CPU-time limit a little above the parent's
wall-time limit, so a worker left spinning after its parent was killed still ends by itself.
"""

from __future__ import annotations

import json
import resource
import sys
from functools import lru_cache
from typing import IO, Any

_NOTHING = object()


def main(arguments: list[str]) -> int:
    memory_bytes, cpu_seconds = int(arguments[0]), int(arguments[1])
    _limit(resource.RLIMIT_AS, memory_bytes)
    import jq  # after the memory limit, so that libjq's own allocations count too

    compiled = lru_cache(maxsize=1024)(jq.compile)  # the same expressions run again and again
    replies = sys.stdout
    _reply(replies, {"ready": True})
    for line in sys.stdin.buffer:
        _arm_cpu_limit(cpu_seconds)
        try:
            request = json.loads(line)
            outputs = iter(compiled(request["program"]).input_value(request["input"]))
            first = next(outputs, _NOTHING)
            answer: dict[str, Any] = {} if first is _NOTHING else {"output": first}
        except ValueError as error:  # jq's runtime errors
            answer = {"error": str(error)}
        except MemoryError:
            answer = {"error": "out of memory"}
        _reply(replies, answer)
    return 0


def _reply(stream: IO[str], answer: dict[str, Any]) -> None:
    stream.write(json.dumps(answer) + "\n")
    stream.flush()


def _limit(which: int, soft: int) -> None:
    """Lower a soft limit, never above the hard limit the process inherited."""
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(which, (soft, hard))


def _arm_cpu_limit(seconds: int) -> None:
    """Allow this evaluation `seconds` of CPU beyond what the worker has used so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    _limit(resource.RLIMIT_CPU, int(usage.ru_utime + usage.ru_stime) + 1 + seconds)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
