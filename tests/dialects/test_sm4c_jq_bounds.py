"""A jq expression never stops the server: SM4C's programs run in a worker process, bounded in wall
time and memory. One that never ends or grows without bound fails its own evaluation with
States.QueryEvaluationError, while other executions run and the API answers; a stopping server
leaves no worker behind.

The tests lower the time limit (to keep the suite fast) and assert outcomes, never durations."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.clients import make_client
from helpers.dialect_driver import Driver

from sfn_emulator.asl.errors import QUERY_EVALUATION_ERROR, StatesError
from sfn_emulator.dialects.sm4c import jq_sandbox
from sfn_emulator.dialects.sm4c.expressions import compile_expression

ROLE = "arn:aws:iam::123456789012:role/sm4c"
SPIN = "def f: f; f"
MEMORY_BOMB = 'reduce range(64) as $i ("x"; . + .)'  # a string doubled 64 times
QUICK = {"id": "quick", "version": "1.0", "name": "Quick", "states": [
    {"name": "A", "start": True, "enterAction": {"type": "injectData", "expression": "${ .n + 1 }"},
     "enterResultHandler": "${ .n = $value }"}]}


def _document(field: str, program: str) -> dict[str, Any]:
    """A one-state document whose `field` holds `program` (the other expressions are harmless)."""
    state: dict[str, Any] = {"name": "A", "start": True,
                             "enterAction": {"type": "injectData", "expression": "${ 1 }"},
                             "enterResultHandler": "${ .seen = $value }"}
    if field == "condition":
        state["transitions"] = [{"condition": f"${{ {program} }}", "nextState": "B"},
                                {"condition": "${ true }", "nextState": "B"}]
        return {"id": "bounded", "version": "1.0", "name": "Bounded", "states": [state, {"name": "B"}]}
    if field == "expression":
        state["enterAction"]["expression"] = f"${{ {program} }}"
    else:
        state[field] = f"${{ {program} }}"
    return {"id": "bounded", "version": "1.0", "name": "Bounded", "states": [state]}


@pytest.fixture
def short_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(jq_sandbox, "TIME_LIMIT_SECONDS", 2.0)
    jq_sandbox.stop_workers()  # no worker started before, so every one is known to the test
    yield
    jq_sandbox.stop_workers()


@pytest.fixture
def memory_limit_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Time that only the memory limit can end: a memory bomb is then stopped by its memory however
    slowly a loaded machine runs it (with the short limit it could be stopped by the clock first)."""
    monkeypatch.setattr(jq_sandbox, "TIME_LIMIT_SECONDS", 600.0)
    jq_sandbox.stop_workers()
    yield
    jq_sandbox.stop_workers()


def _jq_workers(pid: int) -> dict[int, str]:
    """The jq worker processes `pid` started, each with its scheduler state (R: running)."""
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children += [int(child) for child in (task / "children").read_text().split()]
        except FileNotFoundError:  # a thread that ended meanwhile (evaluations run on threads of their own)
            continue
    found = {}
    for child in children:
        try:
            if b"jq_worker" in Path(f"/proc/{child}/cmdline").read_bytes():
                found[child] = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:  # ended meanwhile
            continue
    return found


def _poll(condition: Callable[[], bool], attempts: int = 1200) -> bool:
    """True once `condition()` holds, checking every 50 ms for at most `attempts` checks."""
    for _ in range(attempts):
        if condition():
            return True
        threading.Event().wait(0.05)
    return condition()


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _spinning(pid: int) -> bool:
    return "R" in _jq_workers(pid).values()


@pytest.mark.parametrize("program", [SPIN, "[repeat(.)]", "last(range(1e15))", "[range(1e12)]", MEMORY_BOMB])
def test_a_program_that_never_ends_or_outgrows_memory_fails_its_evaluation(program: str, short_limit: None) -> None:
    expression = compile_expression(f"${{ {program} }}")
    with pytest.raises(StatesError) as failed:
        expression.evaluate({"n": 1})
    assert failed.value.error == QUERY_EVALUATION_ERROR
    assert failed.value.cause.startswith(f"The jq expression '${{ {program} }}' ")
    assert ("did not finish within 2 seconds" in failed.value.cause
            or "stopped abnormally" in failed.value.cause), failed.value.cause
    assert compile_expression("${ .n + 1 }").evaluate({"n": 1}) == 2  # a fresh worker serves the next one


def test_only_the_first_output_is_computed(short_limit: None) -> None:
    assert compile_expression("${ range(1e15) }").evaluate(None) == 0
    assert compile_expression("${ .[] | select(. > 1) }").evaluate([1, 2, 3]) == 2
    assert compile_expression("${ empty }").evaluate(None) is None


def test_a_memory_bomb_fails_as_a_dead_worker(memory_limit_only: None) -> None:
    with pytest.raises(StatesError) as failed:
        compile_expression(MEMORY_BOMB).evaluate(None)
    assert "stopped abnormally" in failed.value.cause
    assert f"{jq_sandbox.MEMORY_LIMIT_BYTES >> 20} MiB" in failed.value.cause


def _spin_then_start_quick(field: str, driver: Driver) -> tuple[str, str]:
    """An execution whose `field` spins (once a worker is seen evaluating it), then a quick one beside it:
    their ARNs."""
    spin = driver.call("create_state_machine", name="spin", roleArn=ROLE,
                       definition=json.dumps(_document(field, SPIN)))["stateMachineArn"]
    quick = driver.call("create_state_machine", name="quick", roleArn=ROLE,
                        definition=json.dumps(QUICK))["stateMachineArn"]
    compile_expression("${ . }").evaluate(None)  # an idle worker: running (R) from now on means evaluating
    spinning = driver.call("start_execution", stateMachineArn=spin, input="{}")["executionArn"]
    assert _poll(lambda: _spinning(os.getpid())), "no jq worker is evaluating"
    return spinning, driver.call("start_execution", stateMachineArn=quick, input='{"n": 1}')["executionArn"]


@pytest.mark.parametrize("field", ["condition", "inputFilter", "expression", "enterResultHandler"])
def test_a_spinning_expression_fails_its_execution_while_others_run_and_the_api_answers(
        field: str, driver: Driver, short_limit: None) -> None:
    spinning, beside = _spin_then_start_quick(field, driver)
    assert driver.call("describe_execution", executionArn=spinning)["status"] == "RUNNING"
    assert {item["name"] for item in driver.call("list_state_machines")["stateMachines"]} == {"spin", "quick"}
    driver.settle()
    driver.check_execution(spinning, {"status": "FAILED", "error": QUERY_EVALUATION_ERROR})
    cause = driver.call("describe_execution", executionArn=spinning)["cause"]
    assert cause == f"The jq expression '${{ {SPIN} }}' did not finish within 2 seconds"
    driver.check_execution(beside, {"status": "SUCCEEDED", "output": {"n": 2}})


def test_a_memory_bomb_fails_its_execution(driver: Driver, memory_limit_only: None) -> None:
    arn = driver.call("create_state_machine", name="bomb", roleArn=ROLE,
                      definition=json.dumps(_document("expression", MEMORY_BOMB)))["stateMachineArn"]
    execution = driver.call("start_execution", stateMachineArn=arn, input="{}")["executionArn"]
    driver.settle()
    driver.check_execution(execution, {"status": "FAILED", "error": QUERY_EVALUATION_ERROR})
    assert "stopped abnormally" in driver.call("describe_execution", executionArn=execution)["cause"]


def test_sigterm_stops_serve_and_its_workers_while_one_spins() -> None:
    process = subprocess.Popen([sys.executable, "-m", "sfn_emulator", "serve", "--port", "0", "--log-level", "WARNING"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        banner = next(line for line in process.stdout if "serving AWS Step Functions on" in line)
        sfn = make_client(banner.split(" on ")[1].split()[0])
        warm = sfn.create_state_machine(name="quick", roleArn=ROLE, definition=json.dumps(QUICK))["stateMachineArn"]
        warming = sfn.start_execution(stateMachineArn=warm, input='{"n": 1}')["executionArn"]
        # Its worker is then idle, so a running (R) worker from now on is one evaluating.
        assert _poll(lambda: sfn.describe_execution(executionArn=warming)["status"] == "SUCCEEDED")
        arn = sfn.create_state_machine(name="spin", roleArn=ROLE,
                                       definition=json.dumps(_document("condition", SPIN)))["stateMachineArn"]
        execution = sfn.start_execution(stateMachineArn=arn, input="{}")["executionArn"]
        assert _poll(lambda: _spinning(process.pid)), "no jq worker is evaluating"
        workers = list(_jq_workers(process.pid))
        assert sfn.describe_execution(executionArn=execution)["status"] == "RUNNING"  # the server answers meanwhile
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0  # a liveness bound: it stops, never after the worker
        assert _poll(lambda: not any(_alive(worker) for worker in workers)), "a worker outlived the server"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_worker_answers_line_by_line_and_ends_with_its_input() -> None:
    worker = subprocess.Popen([sys.executable, "-m", "sfn_emulator.dialects.sm4c.jq_worker", str(1 << 30), "60"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert worker.stdin is not None and worker.stdout is not None
    assert json.loads(worker.stdout.readline()) == {"ready": True}
    for program, answer in [(".[0] + 1", {"output": 2}), ("empty", {}), ("error(\"no\")", {"error": "no"})]:
        worker.stdin.write(json.dumps({"program": program, "input": [1]}) + "\n")
        worker.stdin.flush()
        assert json.loads(worker.stdout.readline()) == answer
    worker.stdin.close()
    assert worker.wait(timeout=60) == 0  # a liveness bound: end of input ends it
    worker.stdout.close()


@pytest.fixture
def long_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A limit no test waits for: only an evaluation off the engine's thread lets others finish first."""
    monkeypatch.setattr(jq_sandbox, "TIME_LIMIT_SECONDS", 600.0)
    jq_sandbox.stop_workers()
    yield
    jq_sandbox.stop_workers()  # ends the spinning worker, and with it the evaluation's thread


@pytest.mark.parametrize("field", ["condition", "expression"])
def test_an_execution_beside_a_spinning_expression_finishes_before_it(field: str, driver: Driver,
                                                                      long_limit: None) -> None:
    """jq runs off the engine's thread: an unrelated execution started while another's expression spins
    runs to its end while that one is still evaluating."""
    spinning, beside = _spin_then_start_quick(field, driver)
    assert _poll(lambda: driver.call("describe_execution", executionArn=beside)["status"] != "RUNNING",
                 attempts=2400), "the execution beside the spinning one did not finish"
    driver.check_execution(beside, {"status": "SUCCEEDED", "output": {"n": 2}})
    assert driver.call("describe_execution", executionArn=spinning)["status"] == "RUNNING"
    driver.call("stop_execution", executionArn=spinning)
    assert driver.call("describe_execution", executionArn=spinning)["status"] == "ABORTED"
