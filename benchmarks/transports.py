"""In-process mode against HTTP: the same workloads through sfn-emulator's two ways in.

    python benchmarks/transports.py [--quick]

HTTP: boto3 at an `sfn-emulator serve` process on a free loopback port, as in run.py. In-process:
boto3 with no endpoint_url, answered by an `Emulator` in this process through
`sfn_emulator.inprocess.intercept` (no socket, no serialisation to a wire beyond botocore's own).
Each scenario gets a fresh emulator per transport; every result is checked as in run.py.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from typing import Any

import boto3
from botocore.config import Config

from run import NOISE_NOTE, Result, attempts, format_figure, format_speedup, measure, print_table, speedup
from scenarios import API_SCENARIOS, FULL, QUICK, SCENARIOS, Profile, Scenario
from servers import OURS

from sfn_emulator.config import Settings
from sfn_emulator.inprocess import intercept
from sfn_emulator.runtime import Emulator

# The transitions loop (engine-bound) and the API round trips (transport-bound).
TRANSPORT_SCENARIOS: list[Scenario] = [SCENARIOS[0], *API_SCENARIOS]


class InProcessEmulator:
    """An emulator in this process and a boto3 client it answers with no socket (a context manager)."""

    def __enter__(self) -> InProcessEmulator:
        self._stack = contextlib.ExitStack()
        emulator = self._stack.enter_context(Emulator(Settings(log_level="WARNING")))
        self._stack.enter_context(intercept(emulator))
        self.client: Any = boto3.client(
            "stepfunctions",
            region_name="us-east-1",
            aws_access_key_id="test",
            aws_secret_access_key="test",
            config=Config(retries={"total_max_attempts": 1}, read_timeout=120),  # as servers.make_client
        )
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stack.close()


def measure_in_process(scenario: Scenario, profile: Profile) -> Result:
    with InProcessEmulator() as emulator:
        return attempts(scenario, emulator, profile)  # type: ignore[arg-type]  # it has the `client` attempts uses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="less work and shorter budgets")
    profile = QUICK if parser.parse_args().quick else FULL
    rows = [["scenario", "HTTP", "in-process", "in-process is faster by"]]
    for scenario in TRANSPORT_SCENARIOS:
        began = time.perf_counter()
        http = measure(scenario, OURS, profile)
        in_process = measure_in_process(scenario, profile)
        print(f"{time.perf_counter() - began:5.1f} s  {scenario.title}", file=sys.stderr)
        ratio, lower_bound = speedup(in_process, http, scenario.unit)
        rows.append([scenario.title, format_figure(http, scenario.unit), format_figure(in_process, scenario.unit),
                     format_speedup(ratio, lower_bound)])
    print()
    print_table(rows)
    print(f"\n{NOISE_NOTE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
