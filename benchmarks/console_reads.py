"""What the web console's polls cost the server, at the sizes that once made them slow.

    python benchmarks/console_reads.py [--tokens 400] [--turns 20] [--events 24000] [--repeat 5]

- Waiting work: `--tokens` executions each waiting for a callback after `--turns` rounds of a
  Pass/Choice loop (four events a round): the read the Waiting work page makes every second.
- A running execution of about `--events` events, waiting for a callback: the reads its page makes
  every second (its summary and one page of 100 events), beside reading every event through the
  same API (what the page read each second before it read a page at a time).
Each figure is the median of `--repeat` reads over HTTP on loopback, with the bytes answered. The
first read of each history digests it (once); later reads cost what they show.
With `--browser` (Playwright on the system's Chromium), that execution's page is also opened in
headless Chromium and watched for ten seconds of polling: the time to its first drawn event table
and the longest task that blocked the page's main thread while it loaded and during the polls after
(the Long Tasks API: tasks over 50 ms).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import urllib.request
from typing import Any

import boto3
from botocore.config import Config

from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator
from sfn_emulator.wire import HttpServer

ROLE = "arn:aws:iam::123456789012:role/bench"


def _loop_then_wait(turns: int) -> dict[str, Any]:
    return {"QueryLanguage": "JSONata", "StartAt": "Count", "States": {
        "Count": {"Type": "Pass", "Output": {"n": "{% $states.input.n + 1 %}"}, "Next": "Again"},
        "Again": {"Type": "Choice", "Default": "Hold", "Choices": [
            {"Condition": f"{{% $states.input.n < {turns} %}}", "Next": "Count"}]},
        "Hold": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
                 "Arguments": {"FunctionName": "hold", "Payload": {"token": "{% $states.context.Task.Token %}"}},
                 "End": True}}}


def _timed_get(url: str) -> tuple[float, int]:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as answer:
        body = answer.read()
    return time.perf_counter() - started, len(body)


def _median_read(url: str, repeat: int) -> tuple[float, float, int]:
    """(first read's seconds, median of the next `repeat` reads' seconds, bytes of the last)."""
    first, _ = _timed_get(url)
    timings = [_timed_get(url) for _ in range(repeat)]
    return first, statistics.median(seconds for seconds, _ in timings), timings[-1][1]


_WATCH_LONG_TASKS = """
window.longestTask = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.longestTask = Math.max(window.longestTask, entry.duration);
}).observe({ type: "longtask", buffered: true });
"""


def _measure_page(url: str) -> None:
    import shutil

    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), headless=True,
                                             args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.add_init_script(_WATCH_LONG_TASKS)
            started = time.perf_counter()
            page.goto(url)
            page.locator("#events tbody tr").first.wait_for(timeout=600_000)
            drawn = time.perf_counter() - started
            loading = page.evaluate("window.longestTask")
            page.evaluate("window.longestTask = 0")
            page.wait_for_timeout(10_000)  # ten polls
            rows = page.locator("#events tbody tr").count()
            print(f"The page in Chromium: event table drawn after {drawn:.2f} s ({rows} rows; longest main-thread "
                  f"task while loading {loading:.0f} ms, the scripts included); longest over the next ten seconds "
                  f"of polls {page.evaluate('window.longestTask'):.0f} ms")
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=400)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--events", type=int, default=24_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--browser", action="store_true", help="also measure the page in headless Chromium")
    options = parser.parse_args()

    with Emulator(Settings(clock="manual")) as emulator:
        emulator.functions.register("hold", lambda event, context: None)
        server = HttpServer(emulator.app, "127.0.0.1", 0).start()
        try:
            sfn = boto3.client("stepfunctions", endpoint_url=server.endpoint_url, region_name="us-east-1",
                               aws_access_key_id="testing", aws_secret_access_key="testing",
                               config=Config(retries={"max_attempts": 1}))
            console = f"{server.endpoint_url}/_emulator/console/api/"

            waiting_machine = sfn.create_state_machine(name="waiting", roleArn=ROLE,
                                                       definition=json.dumps(_loop_then_wait(options.turns)))
            for index in range(options.tokens):
                sfn.start_execution(stateMachineArn=waiting_machine["stateMachineArn"], name=f"w{index}",
                                    input=json.dumps({"n": 0}))
            emulator.engine.run_until_idle()
            first, median, size = _median_read(console + "waiting", options.repeat)
            shown = len(json.loads(urllib.request.urlopen(console + "waiting", timeout=600).read())["callbacks"])
            print(f"Waiting work, {shown} tokens over histories of {4 * options.turns + 6} events: "
                  f"first read {first:.3f} s, then {median * 1000:.1f} ms a read ({size:,} bytes)")

            turns = (options.events - 6) // 4  # four events a round
            long_machine = sfn.create_state_machine(name="long", roleArn=ROLE,
                                                    definition=json.dumps(_loop_then_wait(turns)))
            arn = sfn.start_execution(stateMachineArn=long_machine["stateMachineArn"], name="long",
                                      input=json.dumps({"n": 0}))["executionArn"]
            emulator.engine.run_until_idle()
            quoted = urllib.request.quote(arn, safe="")
            summary = _median_read(f"{console}execution?arn={quoted}", options.repeat)
            count = json.loads(urllib.request.urlopen(f"{console}execution?arn={quoted}", timeout=600).read())["eventCount"]
            page = _median_read(f"{console}events?arn={quoted}&after={count - 100}&limit=100", options.repeat)
            print(f"A running execution of {count:,} events, its page's poll: summary "
                  f"{summary[1] * 1000:.1f} ms ({summary[2]:,} bytes; first read {summary[0]:.3f} s), "
                  f"a page of 100 events {page[1] * 1000:.1f} ms ({page[2]:,} bytes)")
            started = time.perf_counter()
            total = 0
            for after in range(0, count, 1000):
                total += _timed_get(f"{console}events?arn={quoted}&after={after}&limit=1000")[1]
            print(f"Every event of it through the same API (what each poll read before): "
                  f"{time.perf_counter() - started:.3f} s, {total:,} bytes")
            if options.browser:
                _measure_page(f"{server.endpoint_url}/_emulator/console/#/execution/{arn}")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
