"""How a Lambda payload travels from a Task state's input to a handler's `event` and back.

    python benchmarks/lambda_path.py [--tasks N]

In process (no socket), one Standard execution of a Map over N items, each a Task calling a
registered Python callable by its function ARN. Two figures:
- the JSON encodes and decodes of a marked payload, by calling place: every `json.dumps`,
  `json.loads` and `compact_json` whose value or text carries the marker (one task);
- the Python calls per Lambda task, from cProfile over the N tasks (default 2,000).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import threading
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sfn_emulator.api import in_process_runner
from sfn_emulator.asl import json_text
from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator

MARKER = "lambda-path-marker"
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:echo"
ROLE = "arn:aws:iam::123456789012:role/sfn"
ROOT = Path(__file__).resolve().parent.parent


def echo(event: Any, context: Any) -> Any:
    return event


def machine(items_path: str | None) -> dict[str, Any]:
    task = {"Type": "Task", "Resource": FUNCTION, "End": True}
    if items_path is None:
        return {"StartAt": "Call", "States": {"Call": task}}
    return {"StartAt": "Each", "States": {"Each": {
        "Type": "Map", "ItemsPath": items_path, "End": True,
        "ItemProcessor": {"StartAt": "Call", "States": {"Call": task}}}}}


def count_codings(action: Callable[[], Any]) -> Counter[str]:
    """The encodes and decodes of a value or text carrying MARKER that `action()` makes, by calling place."""
    places: Counter[str] = Counter()
    real_dumps, real_loads, real_compact = json.dumps, json.loads, json_text.compact_json

    def counted(kind: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(value: Any, *args: Any, **kwargs: Any) -> Any:
            answer = real(value, *args, **kwargs)
            text = answer if kind != "loads" else value
            if isinstance(text, bytes):
                text = text.decode("utf-8", "replace")
            if isinstance(text, str) and MARKER in text:
                callers = traceback.extract_stack(limit=3)[:2]
                where = " < ".join(f"{os.path.relpath(frame.filename, ROOT)}:{frame.lineno} {frame.name}"
                                   for frame in reversed(callers))
                places[f"{kind} {where}"] += 1
            return answer
        return wrapper

    patched = [(json, "dumps", counted("dumps", real_dumps)), (json, "loads", counted("loads", real_loads))]
    # compact_json is imported by name into its callers' modules: patch each binding
    for module in list(sys.modules.values()):
        if getattr(module, "compact_json", None) is real_compact:
            patched.append((module, "compact_json", counted("compact_json", real_compact)))
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in patched]
    for owner, name, replacement in patched:
        setattr(owner, name, replacement)
    try:
        action()
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)
    return places


def profiled_threads() -> list[cProfile.Profile]:
    """A profiler for each thread started from now on (`sys.setprofile` is per thread)."""
    profiles: list[cProfile.Profile] = []

    def begin(*_: Any) -> None:
        sys.setprofile(None)
        profile = cProfile.Profile()
        profiles.append(profile)
        profile.enable()

    threading.setprofile(begin)
    return profiles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=2000)
    options = parser.parse_args()
    with Emulator(Settings()) as local:
        local.functions.register(FUNCTION, echo)
        runner = in_process_runner(local, role_arn=ROLE)
        single = runner.create_state_machine(machine(None), name="one-call")
        runner.run(single, {"warm": "up"})
        finished: list[Any] = []
        places = count_codings(lambda: finished.append(runner.run(single, {"note": MARKER})))
        assert finished[0].status == "SUCCEEDED", finished[0]
        print(f"JSON encodes/decodes of one Lambda task's payload ({sum(places.values())} in all):")
        for place, count in sorted(places.items()):
            print(f"  {count}  {place}")
    # profiled: a second emulator, whose threads (the engine's too) all start under the profiler
    profiles = profiled_threads()
    with Emulator(Settings()) as local:
        local.functions.register(FUNCTION, echo)
        runner = in_process_runner(local, role_arn=ROLE)
        mapped = runner.create_state_machine(machine("$.items"), name="many-calls")
        items = [{"index": index} for index in range(options.tasks)]
        main_profile = cProfile.Profile()
        main_profile.enable()
        result = runner.run(mapped, {"items": items}, timeout=600)
        main_profile.disable()
        threading.setprofile(None)  # type: ignore[arg-type]
        assert result.status == "SUCCEEDED", result.status
        stats = pstats.Stats(main_profile, *profiles)
        calls = stats.total_calls  # type: ignore[attr-defined]
        print(f"{options.tasks} Lambda tasks in a Map: {calls} calls on all threads, "
              f"{calls / options.tasks:.0f} per task ({stats.total_tt:.2f} s)")  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
