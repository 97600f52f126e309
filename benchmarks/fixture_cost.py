"""What a test pays for the pytest plugin's fixtures, against moto's `mock_aws` with a client per test.

    python benchmarks/fixture_cost.py [--tests 200]

Each suite of `--tests` tests runs in a fresh pytest process (pytest-xdist off); a small plugin of
this benchmark adds up each test's setup and teardown (where fixtures are made and undone), and
the median over the tests (the first five left out: they start the session's emulator) less that
of tests without fixtures is the fixture's own cost. Suites:
- `sfn_client` in-process (the session's emulator in the test process) and against a server
  (`sfn-emulator serve` on a free port, `--sfn-emulator-endpoint`): the test's account, its client,
  the teardown that stops its leftovers;
- the peer, in the same run: `with mock_aws(): yield boto3.client("stepfunctions")` per test.
Then whole suites of tests that run a 10-state Pass chain through `sfn_emulator.run`, with the
Python API's `run_definition` for scale (the same chain, one emulator per call). Targets: 10 ms per
test in-process, 20 ms against a server.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from servers import OURS, RunningServer

SKIPPED_WARM_UP = 5
TARGETS_MS = {"sfn_client in-process": 10.0, "sfn_client against a server": 20.0}

TIMING_PLUGIN = """
import json, os

_COST = {}

def pytest_runtest_logreport(report):
    if report.when in ("setup", "teardown"):
        _COST[report.nodeid] = _COST.get(report.nodeid, 0.0) + report.duration

def pytest_sessionfinish(session):
    with open(os.environ["FIXTURE_COST_OUT"], "w") as out:
        json.dump(list(_COST.values()), out)
"""
PEER_CONFTEST = """
import boto3, pytest
from moto import mock_aws

@pytest.fixture
def moto_client(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws():
        yield boto3.client("stepfunctions", region_name="us-east-1")
"""
CHAIN = {"StartAt": "S0", "States": {**{f"S{i}": {"Type": "Pass", "Next": f"S{i + 1}"} for i in range(9)},
                                       "S9": {"Type": "Pass", "End": True}}}


def suite(fixture: str, count: int, body: str = "pass") -> str:
    arguments = f"{fixture}, n" if fixture else "n"
    return textwrap.dedent(f"""
        import pytest

        CHAIN = {CHAIN!r}

        @pytest.mark.parametrize("n", range({count}))
        def test_one({arguments}):
            {body}
    """)


def run_suite(source: str, *arguments: str, conftest: str = "") -> tuple[list[float], float]:
    """(each test's setup + teardown seconds, the whole run's wall seconds) of one pytest process."""
    with tempfile.TemporaryDirectory(prefix="fixture-cost-") as folder:
        root = Path(folder)
        (root / "timing_plugin.py").write_text(TIMING_PLUGIN)
        (root / "conftest.py").write_text(conftest)
        (root / "test_suite.py").write_text(source)
        out = root / "cost.json"
        environment = {**os.environ, "FIXTURE_COST_OUT": str(out), "PYTHONPATH": folder}
        started = time.perf_counter()
        finished = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "timing_plugin", "-p", "no:xdist",
                                   "-p", "no:randomly", "-p", "no:cacheprovider", *arguments],
                                  cwd=root, env=environment, capture_output=True, text=True)
        took = time.perf_counter() - started
        if finished.returncode != 0:
            raise RuntimeError(f"the suite failed:\n{finished.stdout[-3000:]}\n{finished.stderr[-3000:]}")
        return json.loads(out.read_text()), took


def median_ms(costs: list[float]) -> float:
    return statistics.median(costs[SKIPPED_WARM_UP:]) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=200)
    count = parser.parse_args().tests

    baseline = median_ms(run_suite(suite("", count))[0])
    rows: list[tuple[str, float, float]] = []
    for label, fixture, arguments, conftest in (
        ("sfn_client in-process", "sfn_client", (), ""),
        ("moto mock_aws + own client", "moto_client", (), PEER_CONFTEST),
    ):
        costs, took = run_suite(suite(fixture, count), *arguments, conftest=conftest)
        rows.append((label, median_ms(costs) - baseline, took))
    with RunningServer(OURS) as server:
        costs, took = run_suite(suite("sfn_client", count), f"--sfn-emulator-endpoint={server.endpoint_url}")
        rows.append(("sfn_client against a server", median_ms(costs) - baseline, took))
        chain_remote = run_suite(suite("sfn_emulator", count, "sfn_emulator.run(CHAIN).assert_succeeded()"),
                                 f"--sfn-emulator-endpoint={server.endpoint_url}")[1]
    chain_local = run_suite(suite("sfn_emulator", count, "sfn_emulator.run(CHAIN).assert_succeeded()"))[1]
    api_runs = run_suite(suite("", count, "__import__('sfn_emulator.api').api.run_definition(CHAIN)"
                                          ".assert_succeeded()"))[1]

    print(f"{count} tests per suite; fixture cost = median setup+teardown per test less a test without "
          f"fixtures ({baseline:.2f} ms)\n")
    print(f"{'suite':32} {'fixture cost per test':>22} {'whole run':>10}  target")
    for label, cost, took in rows:
        target = TARGETS_MS.get(label)
        verdict = f"{target:.0f} ms: {'met' if cost <= target else 'NOT MET'}" if target else "(peer)"
        print(f"{label:32} {cost:19.2f} ms {took:9.1f} s  {verdict}")
    print(f"\n{count} tests running a 10-state Pass chain (sfn_emulator.run): in-process {chain_local:.1f} s, "
          f"against a server {chain_remote:.1f} s; {count} run_definition calls: {api_runs:.1f} s "
          "(each run includes pytest's start)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
