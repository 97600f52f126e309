"""Workloads measured on fresh processes rather than on a running server: how soon a server answers
after it is started, how long importing the Python API takes, and, in-process (no HTTP: the
emulator in the test's own process, as `run_definition` and the pytest plugin use it), the engine's
transitions per second and the memory 1,000 finished executions keep. Each attempt runs in a new
Python process, so nothing is warm and memory is its own.

    python benchmarks/process_workloads.py chain ours 20 50      # one in-process attempt, as JSON
    python benchmarks/process_workloads.py retained moto 1000    # memory kept by 1,000 executions
    python benchmarks/process_workloads.py map ours 10000        # memory kept by a 10,000-item Map
"""

from __future__ import annotations

import compileall
import gc
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from scenarios import COUNTER_LOOP, Measurement, Profile
from servers import REPOSITORY, ServerKind, free_port

OURS, MOTO, FLOOR = "ours", "moto", "floor"
_FIRST_REQUEST_LIMIT = 60.0  # seconds a server may take to answer at all
_COLD_STARTS = 5  # attempts per server; the figure is their median


@dataclass(frozen=True)
class ProcessWorkload:
    """One row of the table; `measure(side, profile)` gives the figure of "ours", "moto" or "floor"
    (None: the workload has no such side). `budget`: the most our figure may be (memory)."""

    title: str
    unit: str
    measure: Callable[[str, Profile], Measurement | None]
    budget: float | None = None


# -- cold start -------------------------------------------------------------------------------------

def compile_bytecode() -> None:
    """Start-up is measured as installed: pip compiles a package's bytecode when it installs it, and
    moto's and Flask's are; an editable checkout run under PYTHONDONTWRITEBYTECODE would otherwise
    compile the emulator's every module from source on every start."""
    compileall.compile_dir(REPOSITORY / "emulator", quiet=1)


def cpu_seconds(pid: int) -> float:
    """The processor time a process has used so far (user and system, in clock ticks of 10 ms): on a
    machine shared with other work, what the start cost itself, without the waiting for a core."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_answer_seconds(kind: ServerKind) -> tuple[float, float]:
    """From starting the server process to its first answered ListStateMachines (raw HTTP, no SDK):
    wall time, and the processor time the server used until then."""
    port = free_port()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/", data=b"{}", headers={
        "X-Amz-Target": "AWSStepFunctions.ListStateMachines", "Content-Type": "application/x-amz-json-1.0"})
    began = time.perf_counter()
    process = subprocess.Popen(kind.command(port), cwd=REPOSITORY, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        while time.perf_counter() - began < _FIRST_REQUEST_LIMIT:
            try:
                with urllib.request.urlopen(request, timeout=_FIRST_REQUEST_LIMIT) as answer:
                    answer.read()
                    return time.perf_counter() - began, cpu_seconds(process.pid)
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.002)
        raise RuntimeError(f"{kind.label} did not answer within {_FIRST_REQUEST_LIMIT:.0f} s")
    finally:
        process.terminate()
        process.wait()


def cold_start(kinds: dict[str, ServerKind]) -> Callable[[str, Profile], Measurement | None]:
    def measure(side: str, profile: Profile) -> Measurement | None:
        compile_bytecode()
        walls, cpus = zip(*(first_answer_seconds(kinds[side]) for _ in range(_COLD_STARTS)))
        return Measurement(statistics.median(walls), note=_wall_and_cpu_note(walls, cpus))

    return measure


# -- import time ------------------------------------------------------------------------------------

# What a test imports before it can run a definition in-process.
IMPORTS = {
    OURS: "import sfn_emulator.api, sfn_emulator.runtime",
    MOTO: "import boto3; from moto import mock_aws; import moto.stepfunctions.models",
}


def import_seconds(statement: str) -> tuple[float, float]:
    """Wall and processor time of the import statement, in a fresh interpreter."""
    code = (f"import time; t, c = time.perf_counter(), time.process_time(); {statement}; "
            "print(time.perf_counter() - t, time.process_time() - c)")
    wall, cpu = subprocess.run([sys.executable, "-c", code], cwd=REPOSITORY, check=True, capture_output=True,
                               text=True).stdout.split()
    return float(wall), float(cpu)


def _wall_and_cpu_note(walls: tuple[float, ...], cpus: tuple[float, ...]) -> str:
    return (f"best {min(walls) * 1000:.0f} ms; processor time median {statistics.median(cpus) * 1000:.0f} ms, "
            f"best {min(cpus) * 1000:.0f} ms")


def import_time(side: str, profile: Profile) -> Measurement | None:
    if side not in IMPORTS:
        return None
    compile_bytecode()
    walls, cpus = zip(*(import_seconds(IMPORTS[side]) for _ in range(_COLD_STARTS)))
    return Measurement(statistics.median(walls), note=_wall_and_cpu_note(walls, cpus))


# -- the engine in-process --------------------------------------------------------------------------

def _child_outcome(command: list[str], profile: Profile) -> dict[str, Any] | Measurement:
    """What one measuring child process printed (JSON), or the Measurement of its failure."""
    try:
        finished = subprocess.run(command, cwd=REPOSITORY, capture_output=True, text=True,
                                  timeout=profile.execution_budget * 2)
    except subprocess.TimeoutExpired:
        return Measurement(None, gave_up_after=profile.execution_budget * 2)
    if finished.returncode != 0:
        return Measurement(None, problem=(finished.stderr.strip().splitlines() or ["failed"])[-1][:160])
    outcome: dict[str, Any] = json.loads(finished.stdout)
    if outcome.get("problem"):
        return Measurement(None, problem=outcome["problem"])
    return outcome


def in_process_chain(side: str, profile: Profile) -> Measurement | None:
    if side == FLOOR:
        return None
    command = [sys.executable, __file__, "chain", side, str(profile.loop_executions), str(profile.loop_iterations)]
    outcomes = []
    for _ in range(_COLD_STARTS if side == OURS else 1):  # ours takes tens of milliseconds: one hiccup doubles it
        outcome = _child_outcome(command, profile)
        if isinstance(outcome, Measurement):
            return outcome
        outcomes.append(outcome)
    outcome = sorted(outcomes, key=lambda run: run["seconds"])[len(outcomes) // 2]  # the median attempt
    return Measurement(outcome["transitions"] / outcome["seconds"],
                       note=f"{outcome['transitions']} transitions in {outcome['seconds']:.2f} s "
                            f"(median of {len(outcomes)}); RSS {outcome['rss_mib']:.0f} MiB")


def run_chain_ours(executions: int, limit: int) -> tuple[float, int, str | None]:
    from sfn_emulator.config import Settings
    from sfn_emulator.runtime import Emulator

    # With SFN_EMULATOR_STATE_DIR set, the chain runs with persistence on, in a fresh directory under it.
    state_root = os.environ.get("SFN_EMULATOR_STATE_DIR")
    state_dir = Path(tempfile.mkdtemp(dir=state_root)) if state_root else None
    with Emulator(Settings(log_level="WARNING", state_dir=state_dir)) as emulator:
        service = emulator.service
        machine = service.create_state_machine(name="chain", definition=json.dumps(COUNTER_LOOP),
                                               roleArn="arn:aws:iam::123456789012:role/bench")["stateMachineArn"]
        began = time.perf_counter()
        arns = [service.start_execution(stateMachineArn=machine, input=json.dumps({"limit": limit}))["executionArn"]
                for _ in range(executions)]
        emulator.clock.run_until_idle(120)
        seconds = time.perf_counter() - began
        statuses = {service.describe_execution(executionArn=arn)["status"] for arn in arns}
        transitions = sum(event["type"].endswith("StateEntered")
                          for arn in arns for event in service.execution_events(executionArn=arn))
    return seconds, transitions, None if statuses == {"SUCCEEDED"} else f"ended {sorted(statuses)}"


def run_chain_moto(executions: int, limit: int) -> tuple[float, int, str | None]:
    import boto3
    from moto import mock_aws

    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
        client = boto3.client("stepfunctions", region_name="us-east-1")
        machine = client.create_state_machine(name="chain", definition=json.dumps(COUNTER_LOOP),
                                              roleArn="arn:aws:iam::123456789012:role/bench")["stateMachineArn"]
        began = time.perf_counter()
        arns = [client.start_execution(stateMachineArn=machine, name=f"run{index}",
                                       input=json.dumps({"limit": limit}))["executionArn"]
                for index in range(executions)]
        statuses = set()
        for arn in arns:
            while (status := client.describe_execution(executionArn=arn)["status"]) == "RUNNING":
                if time.perf_counter() - began > 120:
                    return time.perf_counter() - began, 0, "still running after 120 s"
                time.sleep(0.01)
            statuses.add(status)
        seconds = time.perf_counter() - began
        paginator = client.get_paginator("get_execution_history")
        transitions = sum(event["type"].endswith("StateEntered") for arn in arns
                          for page in paginator.paginate(executionArn=arn) for event in page["events"])
    return seconds, transitions, None if statuses == {"SUCCEEDED"} else f"ended {sorted(statuses)}"


# -- memory kept by finished executions ------------------------------------------------------------

RETAINED_EXECUTIONS = 1_000
# Budgets, set from the figures measured once history events were stored compactly (3.2-3.8 MiB per
# 1,000 executions, after a warm-up of as many on each side; 22.5 MiB for the Map) with room for the
# noise of resident-memory pages (single runs here gave 2.2 to 3.8 MiB for the same code).
RETAINED_BUDGET_MIB = 4.5
MAP_ITEMS = 10_000
MAP_BUDGET_MIB = 32.0
_MAP_LIMIT = 200.0  # seconds a side may take to run the Map (the child process is given 240)
THREE_PASSES = {"StartAt": "A", "States": {"A": {"Type": "Pass", "Next": "B"}, "B": {"Type": "Pass", "Next": "C"},
                                            "C": {"Type": "Pass", "End": True}}}


def rss_mib() -> float:
    status = Path("/proc/self/status").read_text()
    found = re.search(r"^VmRSS:\s+(\d+)", status, re.MULTILINE)
    return int(found.group(1)) / 1024 if found else 0.0


def retained_memory(side: str, profile: Profile) -> Measurement | None:
    if side == FLOOR:
        return None
    command = [sys.executable, __file__, "retained", side, str(RETAINED_EXECUTIONS)]
    outcome = _child_outcome(command, profile)
    if isinstance(outcome, Measurement):
        return outcome
    return Measurement(outcome["mib"], note=f"RSS {outcome['before']:.0f} -> {outcome['after']:.0f} MiB")


def run_retained(side: str, executions: int) -> dict[str, Any]:
    """RSS before and after `executions` three-Pass executions ran to their end and were kept, after as
    many ran first on each side, so that what is loaded or cached once (modules, the coverage
    recorder's first batch, moto's backends) is not counted as kept by the executions."""
    definition = json.dumps(THREE_PASSES)
    role = "arn:aws:iam::123456789012:role/bench"
    if side == OURS:
        from sfn_emulator.config import Settings
        from sfn_emulator.runtime import Emulator

        with Emulator(Settings(log_level="WARNING")) as emulator:
            service = emulator.service
            machine = service.create_state_machine(name="kept", definition=definition, roleArn=role)["stateMachineArn"]
            for _ in range(executions):  # warm-up: what loads once (code, caches, coverage) is not per execution
                service.start_execution(stateMachineArn=machine)
            emulator.clock.run_until_idle(60)
            gc.collect()
            before = rss_mib()
            for _ in range(executions):
                service.start_execution(stateMachineArn=machine, input='{"order": 1}')
            emulator.clock.run_until_idle(120)
            gc.collect()
            return {"before": before, "after": rss_mib()}
    import boto3
    from moto import mock_aws

    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
        client = boto3.client("stepfunctions", region_name="us-east-1")
        machine = client.create_state_machine(name="kept", definition=definition, roleArn=role)["stateMachineArn"]

        def run(names: list[str]) -> bool:
            arns = [client.start_execution(stateMachineArn=machine, name=name, input='{"order": 1}')["executionArn"]
                    for name in names]
            began = time.perf_counter()
            for arn in arns:
                while client.describe_execution(executionArn=arn)["status"] == "RUNNING":
                    if time.perf_counter() - began > 120:
                        return False
                    time.sleep(0.01)
            return True

        run([f"warm-up{index}" for index in range(executions)])  # as ours: one-time loads are not per execution
        gc.collect()
        before = rss_mib()
        if not run([f"run{index}" for index in range(executions)]):
            return {"problem": "still running after 120 s"}
        gc.collect()
        return {"before": before, "after": rss_mib()}


# A Distributed Map: its 10,000 items run as child executions, each kept with its history as AWS
# keeps them (an inline Map of 10,000 items would write 40,006 events, over a Standard execution's
# 25,000-event quota). The result is the item count, so the parent's output stays small.
TEN_THOUSAND_ITEM_MAP = {"StartAt": "Items", "States": {"Items": {
    "Type": "Map", "MaxConcurrency": 1000,
    "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                      "StartAt": "Keep", "States": {"Keep": {"Type": "Pass", "End": True}}},
    "ResultSelector": {"items.$": "States.ArrayLength($)"}, "End": True}}}


def map_memory(side: str, profile: Profile) -> Measurement | None:
    if side == FLOOR:
        return None
    outcome = _child_outcome([sys.executable, __file__, "map", side, str(MAP_ITEMS)], profile)
    if isinstance(outcome, Measurement):
        return outcome
    return Measurement(outcome["mib"], note=f"RSS {outcome['before']:.0f} -> {outcome['after']:.0f} MiB, "
                                            f"ran in {outcome['seconds']:.1f} s")


def run_map(side: str, items: int) -> dict[str, Any]:
    """RSS before and after one Map over `items` items ran to its end and was kept."""
    definition, role = json.dumps(TEN_THOUSAND_ITEM_MAP), "arn:aws:iam::123456789012:role/bench"
    expected = json.dumps({"items": items}, separators=(",", ":"))
    if side == OURS:
        from sfn_emulator.config import Settings
        from sfn_emulator.runtime import Emulator

        with Emulator(Settings(log_level="WARNING")) as emulator:
            service = emulator.service
            machine = service.create_state_machine(name="map", definition=definition, roleArn=role)["stateMachineArn"]
            gc.collect()
            before, began = rss_mib(), time.perf_counter()
            arn = service.start_execution(stateMachineArn=machine, input=json.dumps(list(range(items))))["executionArn"]
            emulator.clock.run_until_idle(_MAP_LIMIT)
            seconds = time.perf_counter() - began
            described = service.describe_execution(executionArn=arn)
            gc.collect()
            return _map_outcome(described, expected, before, seconds)
    import boto3
    from moto import mock_aws

    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
        client = boto3.client("stepfunctions", region_name="us-east-1")
        machine = client.create_state_machine(name="map", definition=definition, roleArn=role)["stateMachineArn"]
        gc.collect()
        before, began = rss_mib(), time.perf_counter()
        arn = client.start_execution(stateMachineArn=machine, input=json.dumps(list(range(items))))["executionArn"]
        while (described := client.describe_execution(executionArn=arn))["status"] == "RUNNING":
            if time.perf_counter() - began > _MAP_LIMIT:
                return {"problem": f"still running after {_MAP_LIMIT:.0f} s"}
            time.sleep(0.05)
        seconds = time.perf_counter() - began
        gc.collect()
        return _map_outcome(described, expected, before, seconds)


def _map_outcome(described: dict[str, Any], expected: str, before: float, seconds: float) -> dict[str, Any]:
    output = json.dumps(json.loads(described.get("output") or "null"), separators=(",", ":"))
    if described["status"] != "SUCCEEDED" or output != expected:
        return {"problem": f"ended {described['status']} with {output[:80]}"}
    return {"before": before, "after": rss_mib(), "seconds": seconds}


def _memory_main(run: Callable[[str, int], dict[str, Any]], side: str, count: int) -> int:
    """Print, as JSON, one memory workload's outcome with the MiB it kept (`after` - `before`)."""
    sys.path.insert(0, str(Path(__file__).parent))
    outcome = run(side, count)
    if "problem" not in outcome:
        outcome["mib"] = outcome["after"] - outcome["before"]
    print(json.dumps(outcome))
    return 0


def _chain_main(side: str, executions: int, limit: int) -> int:
    sys.path.insert(0, str(Path(__file__).parent))
    seconds, transitions, problem = (run_chain_ours if side == OURS else run_chain_moto)(executions, limit)
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "transitions": transitions, "problem": problem, "rss_mib": rss_mib}))
    return 0


def process_workloads(kinds: dict[str, ServerKind]) -> list[ProcessWorkload]:
    return [
        ProcessWorkload("Cold start: server process to first answer", "s", cold_start(kinds)),
        ProcessWorkload("Import what runs a definition in-process", "s", import_time),
        ProcessWorkload("Transitions per second in-process (same loop)", "/s", in_process_chain),
        ProcessWorkload(f"Memory kept by {RETAINED_EXECUTIONS:,} finished executions (MiB)", "MiB", retained_memory,
                        budget=RETAINED_BUDGET_MIB),
        ProcessWorkload(f"Memory kept by a {MAP_ITEMS:,}-item Distributed Map (MiB)", "MiB", map_memory,
                        budget=MAP_BUDGET_MIB),
    ]


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "chain":
        raise SystemExit(_chain_main(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
    if len(sys.argv) == 4 and sys.argv[1] == "retained":
        raise SystemExit(_memory_main(run_retained, sys.argv[2], int(sys.argv[3])))
    if len(sys.argv) == 4 and sys.argv[1] == "map":
        raise SystemExit(_memory_main(run_map, sys.argv[2], int(sys.argv[3])))
    raise SystemExit(__doc__)
