"""Speed of sfn-emulator against moto's Step Functions, measured in one run on one machine.

    python benchmarks/run.py [--quick] [--json out.json]

Both emulators run as separate server processes on free loopback ports and are driven over HTTP by
boto3 clients with identical settings. Each scenario gets a fresh server process per emulator, and
only one server runs at a time: work left running by a peer that was given up on cannot slow what
follows, and a virtual clock moved on by one scenario cannot shift the next.
Results are reported as ratios: absolute figures on a shared two-core machine say little, the ratio
of two figures measured minutes apart on the same machine says more.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import botocore.exceptions

from scenarios import FULL, QUICK, SCENARIOS, Profile, Scenario
from servers import MOTO, OURS, RunningServer, ServerKind

NOISE_NOTE = (
    "The machine is noisy (2 shared cores, other work running): trust the ratios, measured in the "
    "same run, more than the absolute figures."
)


@dataclass
class Result:
    """A scenario's figure on one server: the median of its attempts, or why there is none."""

    value: float | None
    attempts: list[float]
    gave_up_after: float | None = None
    problem: str | None = None
    note: str = ""


def measure(scenario: Scenario, kind: ServerKind, profile: Profile) -> Result:
    """Up to `profile.repeats` attempts on a fresh server; one given up on or wrong ends the series."""
    with RunningServer(kind) as server:
        return attempts(scenario, server, profile)


def attempts(scenario: Scenario, server: RunningServer, profile: Profile) -> Result:
    values: list[float] = []
    note = ""
    try:
        state = scenario.prepare(server.client, profile)
        began = time.perf_counter()
        while len(values) < profile.repeats and (not values or time.perf_counter() - began < profile.repeat_budget):
            measurement = scenario.attempt(server.client, state, profile)
            if measurement.value is None:
                return Result(None, values, measurement.gave_up_after, measurement.problem, measurement.note)
            values.append(measurement.value)
            note = measurement.note
    except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as error:  # API error, no answer
        return Result(None, values, problem=str(error).splitlines()[0][:160])
    return Result(statistics.median(values), values, note=note)


def format_figure(result: Result, unit: str) -> str:
    if result.problem is not None:
        return f"wrong: {result.problem}"
    if result.value is None:
        return f"gave up after {result.gave_up_after:g} s"
    if unit == "/s":
        return f"{result.value:,.0f} /s"
    return f"{result.value * 1000:,.0f} ms" if result.value < 1 else f"{result.value:,.2f} s"


def speedup(ours: Result, peer: Result, unit: str) -> tuple[float | None, bool]:
    """How many times faster we are, and whether that is only a lower bound (the peer was given up on)."""
    if ours.value is None or peer.problem is not None:
        return None, False
    if peer.value is None:
        if unit == "/s" or peer.gave_up_after is None:
            return None, False
        return peer.gave_up_after / ours.value, True
    return (ours.value / peer.value if unit == "/s" else peer.value / ours.value), False


def format_speedup(ratio: float | None, lower_bound: bool) -> str:
    if ratio is None:
        return "n/a"
    return f"> {ratio:,.0f}x" if lower_bound else f"{ratio:,.1f}x"


def machine_note() -> dict[str, Any]:
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}


def load_average() -> list[float]:
    """1-, 5- and 15-minute load averages: how busy the machine was with other work."""
    return [round(load, 2) for load in os.getloadavg()]


def print_table(rows: list[list[str]]) -> None:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for index, row in enumerate(rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        if index == 0:
            print("  ".join("-" * width for width in widths))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="less work and shorter budgets (about a minute)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the results to FILE as JSON")
    arguments = parser.parse_args()
    profile = QUICK if arguments.quick else FULL
    mode = "quick" if arguments.quick else "full"

    machine = machine_note()
    load_at_start = load_average()
    began = time.perf_counter()
    rows = [["scenario", OURS.label, MOTO.label, "we are faster by", "notes"]]
    report: list[dict[str, Any]] = []
    for scenario in SCENARIOS:
        scenario_began = time.perf_counter()
        ours = measure(scenario, OURS, profile)
        peer = measure(scenario, MOTO, profile)
        print(f"{time.perf_counter() - scenario_began:5.1f} s  {scenario.title}", file=sys.stderr)
        ratio, lower_bound = speedup(ours, peer, scenario.unit)
        notes = "; ".join(f"{name}: {r.note}" for name, r in (("ours", ours), ("moto", peer)) if r.note)
        rows.append([scenario.title, format_figure(ours, scenario.unit), format_figure(peer, scenario.unit),
                     format_speedup(ratio, lower_bound), notes])
        report.append({"scenario": scenario.title, "unit": scenario.unit, "ours": asdict(ours),
                       "moto": asdict(peer), "speedup": ratio, "speedup_is_lower_bound": lower_bound})
    duration = time.perf_counter() - began
    machine["load_average"] = {"start": load_at_start, "end": load_average()}

    print()
    print_table(rows)
    print(f"\n{mode} run in {duration:.0f} s; a figure is the median of up to {profile.repeats} attempt(s); "
          f"{machine['cpus']} CPUs, load averages {machine['load_average']['start']} at start, "
          f"{machine['load_average']['end']} at end.\n{NOISE_NOTE}")
    if arguments.json:
        document = {
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "mode": mode,
            "profile": asdict(profile),
            "machine": machine,
            "servers": {"ours": OURS.label, "peer": MOTO.label},
            "duration_seconds": round(duration, 1),
            "results": report,
        }
        arguments.json.write_text(json.dumps(document, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
