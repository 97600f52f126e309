"""Speed of sfn-emulator against moto's Step Functions and against a no-engine floor, in one run.

    python benchmarks/run.py [--quick] [--only TEXT] [--json out.json]

The emulators run as separate server processes on free loopback ports and are driven over HTTP by
boto3 clients with identical settings. Each scenario gets a fresh server process per emulator, and
only one server runs at a time: work left running by a peer that was given up on cannot slow what
follows, and a virtual clock moved on by one scenario cannot shift the next. The floor
(`floor_server.py`) answers API-only scenarios with canned bodies: how close a figure is to it says
how little the emulator adds to the HTTP and JSON every server pays. The server's resident memory
is read after each scenario. Cold start, import time and the in-process engine are measured on
fresh processes (`process_workloads.py`).
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

from process_workloads import FLOOR as FLOOR_SIDE
from process_workloads import MOTO as MOTO_SIDE
from process_workloads import OURS as OURS_SIDE
from process_workloads import process_workloads
from scale_scenarios import SCALE_SCENARIOS
from scenarios import FULL, QUICK, SCENARIOS, Measurement, Profile, Scenario
from waiting_scenarios import WAITING_SCENARIOS
from servers import FLOOR, MOTO, OURS, RunningServer, ServerKind

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
    rss_mib: float | None = None  # the server's resident memory after the attempts


NOT_MEASURED = Result(None, [], problem="not measured")


def measure(scenario: Scenario, kind: ServerKind, profile: Profile) -> Result:
    """Up to `profile.repeats` attempts on a fresh server; one given up on or wrong ends the series."""
    with RunningServer(kind) as server:
        result = attempts(scenario, server, profile)
        result.rss_mib = server.rss_mib()
        return result


def from_measurement(measurement: Measurement | None) -> Result:
    if measurement is None:
        return NOT_MEASURED
    values = [] if measurement.value is None else [measurement.value]
    return Result(measurement.value, values, measurement.gave_up_after, measurement.problem, measurement.note)


def attempts(scenario: Scenario, server: RunningServer, profile: Profile) -> Result:
    values: list[float] = []
    notes: list[str] = []
    try:
        state = scenario.prepare(server.client, profile)
        began = time.perf_counter()
        while len(values) < profile.repeats and (not values or time.perf_counter() - began < profile.repeat_budget):
            processor_before = server.processor_seconds()
            measurement = scenario.attempt(server.client, state, profile)
            if measurement.value is None:
                return Result(None, values, measurement.gave_up_after, measurement.problem, measurement.note)
            values.append(measurement.value)
            notes.append(measurement.note + processor_note(measurement, processor_before, server.processor_seconds()))
    except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as error:  # API error, no answer
        return Result(None, values, problem=str(error).splitlines()[0][:160])
    median_attempt = sorted(range(len(values)), key=values.__getitem__)[(len(values) - 1) // 2]
    return Result(statistics.median(values), values, note=notes[median_attempt])


def processor_note(measurement: Measurement, before: float | None, after: float | None) -> str:
    """The server's processor time per item of the attempt, for workloads measured per item: on a
    loaded machine the wall time per item swings with the waiting for a core, this does not."""
    if measurement.per is None or before is None or after is None:
        return ""
    count, item = measurement.per
    return f", server processor {(after - before) / count * 1e6:.1f} us/{item}"


def format_figure(result: Result, unit: str) -> str:
    if result.problem is not None:
        return f"wrong: {result.problem}"
    if result.value is None:
        return f"gave up after {result.gave_up_after:g} s"
    if unit == "/s":
        return f"{result.value:,.0f} /s"
    if unit == "MiB":
        return f"{result.value:,.1f} MiB"
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


def format_floor(ours: Result, floor: Result, unit: str) -> str:
    """Our cost as a multiple of the floor's (1.0x: nothing added to the HTTP and JSON)."""
    if ours.value is None or floor.value is None:
        return "n/a"
    return f"{(floor.value / ours.value if unit == '/s' else ours.value / floor.value):,.1f}x"


def format_memory(*results: Result) -> str:
    return " / ".join("-" if r.rss_mib is None else f"{r.rss_mib:,.0f}" for r in results)


def budget_check(title: str, ours: Result, budget: float, unit: str) -> str:
    """One line: our figure against the most it may be."""
    if ours.value is None:
        return f"  {title}: not measured ({ours.problem or 'gave up'}), budget {budget:g} {unit}"
    verdict = "met" if ours.value <= budget else "NOT MET"
    return f"  {title}: {ours.value:,.1f} {unit} against a budget of {budget:g} {unit}: {verdict}"


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
    parser.add_argument("--only", metavar="TEXT", help="run only the workloads whose title contains TEXT")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the results to FILE as JSON")
    arguments = parser.parse_args()
    profile = QUICK if arguments.quick else FULL
    mode = "quick" if arguments.quick else "full"

    def chosen(title: str, full_only: bool = False) -> bool:
        return (not (arguments.quick and full_only)
                and (arguments.only is None or arguments.only.lower() in title.lower()))

    machine = machine_note()
    load_at_start = load_average()
    began = time.perf_counter()
    rows = [["workload", OURS.label, MOTO.label, FLOOR.label, "better than moto", "cost vs floor",
             "RSS MiB ours / moto / floor", "notes"]]
    report: list[dict[str, Any]] = []

    def add_row(title: str, unit: str, ours: Result, peer: Result, floor: Result, took: float) -> None:
        print(f"{took:5.1f} s  {title}", file=sys.stderr)
        ratio, lower_bound = speedup(ours, peer, unit)
        notes = "; ".join(f"{name}: {r.note}" for name, r in (("ours", ours), ("moto", peer)) if r.note)
        rows.append([title, format_figure(ours, unit), format_figure(peer, unit),
                     "-" if floor is NOT_MEASURED else format_figure(floor, unit), format_speedup(ratio, lower_bound),
                     format_floor(ours, floor, unit), format_memory(ours, peer, floor), notes])
        report.append({"scenario": title, "unit": unit, "ours": asdict(ours), "moto": asdict(peer),
                       "floor": asdict(floor), "speedup": ratio, "speedup_is_lower_bound": lower_bound})

    for scenario in [*SCENARIOS, *SCALE_SCENARIOS, *WAITING_SCENARIOS]:
        if not chosen(scenario.title, scenario.full_only):
            continue
        scenario_began = time.perf_counter()
        ours = measure(scenario, OURS, profile)
        peer = measure(scenario, MOTO, profile)
        floor = measure(scenario, FLOOR, profile) if scenario.floor else NOT_MEASURED
        add_row(scenario.title, scenario.unit, ours, peer, floor, time.perf_counter() - scenario_began)
    kinds = {OURS_SIDE: OURS, MOTO_SIDE: MOTO, FLOOR_SIDE: FLOOR}
    budgets: list[str] = []
    for workload in process_workloads(kinds):
        if not chosen(workload.title):
            continue
        workload_began = time.perf_counter()
        ours, peer, floor = (from_measurement(workload.measure(side, profile))
                             for side in (OURS_SIDE, MOTO_SIDE, FLOOR_SIDE))
        add_row(workload.title, workload.unit, ours, peer, floor, time.perf_counter() - workload_began)
        if workload.budget is not None:
            budgets.append(budget_check(workload.title, ours, workload.budget, workload.unit))
    duration = time.perf_counter() - began
    machine["load_average"] = {"start": load_at_start, "end": load_average()}

    print()
    print_table(rows)
    if budgets:
        print("\nBudgets:\n" + "\n".join(budgets))
    print(f"\n{mode} run in {duration:.0f} s; a figure is the median of up to {profile.repeats} attempt(s); "
          f"{machine['cpus']} CPUs, load averages {machine['load_average']['start']} at start, "
          f"{machine['load_average']['end']} at end.\n{NOISE_NOTE}")
    if arguments.json:
        document = {
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "mode": mode,
            "profile": asdict(profile),
            "machine": machine,
            "servers": {"ours": OURS.label, "peer": MOTO.label, "floor": FLOOR.label},
            "duration_seconds": round(duration, 1),
            "results": report,
            "budgets": budgets,
        }
        arguments.json.write_text(json.dumps(document, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
