"""A dialect from another distribution: installed beside the emulator, it is found through the entry
point group `sfn_emulator.dialects`, as the emulator's own Serverless Workflow versions and SM4C are,
and runs through boto3 like any state machine.

The distribution is made here for real (a module and its `.dist-info` with `entry_points.txt`) in
a directory a real `sfn-emulator serve` process has on its path; nothing in the emulator names it.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from datetime import timedelta
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from sfn_emulator import dialects
from tests.helpers.clients import make_client
from tests.helpers.state_servers import BANNER, CONSOLE_SCRIPT, START_TIMEOUT, post_json

ROLE = "arn:aws:iam::123456789012:role/r"

# A countdown: `{"countdown": {"from": N, "everySeconds": S}}` ticks N times, S seconds of clock time
# apart, and answers the ticks with the execution's input.
_DIALECT_MODULE = '''
from datetime import timedelta
from typing import Any, Mapping

from sfn_emulator.asl.validation import ERROR, SCHEMA_VALIDATION_FAILED, Diagnostic, InvalidDefinitionError
from sfn_emulator.dialects import load_document
from sfn_emulator.engine.effects import Sleep
from sfn_emulator.graphs.structure import Graph


class Countdown:
    def __init__(self, start: int, every_seconds: float) -> None:
        self.start = start
        self.every_seconds = every_seconds
        self.timeout_seconds = None  # the execution's own timeout, which the engine reads from every model


def _problems(document: Any) -> list[Diagnostic]:
    body = document.get("countdown") if isinstance(document, Mapping) else None
    if not isinstance(body, Mapping) or not isinstance(body.get("from"), int) or body["from"] < 0 \\
            or not isinstance(body.get("everySeconds"), (int, float)):
        return [Diagnostic(ERROR, SCHEMA_VALIDATION_FAILED, "countdown needs an integer 'from' >= 0 and 'everySeconds'")]
    return []


class CountdownDialect:
    name = "countdown"
    model = Countdown

    def recognises(self, document: Any) -> bool:
        return isinstance(document, Mapping) and set(document) == {"countdown"}

    def parse(self, text: str, *, state_machine_type: str) -> Countdown:
        document = load_document(text)
        problems = _problems(document)
        if problems:
            raise InvalidDefinitionError(problems)
        return Countdown(document["countdown"]["from"], document["countdown"]["everySeconds"])

    def validate(self, text: str, *, state_machine_type: str, severity: str, max_results: int) -> list[Diagnostic]:
        return _problems(load_document(text))[:max_results]

    def run(self, run):
        machine = run.execution.machine
        ticks = []
        for left in range(machine.start, 0, -1):
            yield Sleep(run.now() + timedelta(seconds=machine.every_seconds))
            ticks.append(left)
        return {"ticks": ticks, "input": run.execution.input_value()}

    def graph(self, definition: str) -> Graph:
        return Graph((), (), ())

    def mock_view(self, model: Countdown) -> Mapping[str, Any]:
        return {"States": {}}


DIALECT = CountdownDialect()
'''


def _install_distribution(site: Path) -> None:
    """What pip would leave for a distribution `countdown-dialect` naming its dialect in the group."""
    (site / "countdown_dialect.py").write_text(_DIALECT_MODULE)
    info = site / "countdown_dialect-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: countdown-dialect\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{dialects.ENTRY_POINT_GROUP}]\ncountdown = countdown_dialect:DIALECT\n")


@pytest.fixture(scope="module")
def server_with_the_dialect(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`sfn-emulator serve` with the distribution on its path; answers its endpoint URL."""
    from sfn_emulator.config import OPTIONS

    site = tmp_path_factory.mktemp("site")
    _install_distribution(site)
    env = {name: value for name, value in os.environ.items() if name not in {option.env for option in OPTIONS}}
    env["PYTHONPATH"] = os.pathsep.join([str(site), *filter(None, [env.get("PYTHONPATH")])])
    process = subprocess.Popen([str(CONSOLE_SCRIPT), "serve", "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=env)
    assert process.stdout is not None
    lines = []
    for line in process.stdout:  # bounded: the process ends (EOF) or prints the banner
        lines.append(line)
        if BANNER in line:
            threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()  # type: ignore[union-attr]
            break
    else:
        process.wait(timeout=START_TIMEOUT)
        raise AssertionError("the server did not start:\n" + "".join(lines))
    try:
        yield lines[-1].split(BANNER, 1)[1].split()[0]
    finally:
        process.terminate()
        process.wait(timeout=START_TIMEOUT)


def test_an_installed_dialect_runs_a_workflow_through_boto3(server_with_the_dialect: str) -> None:
    sfn = make_client(server_with_the_dialect)
    definition = "countdown:\n  from: 3\n  everySeconds: 600\n"  # YAML, as the dialects other than ASL may be
    machine = sfn.create_state_machine(name="countdown", definition=definition, roleArn=ROLE)["stateMachineArn"]
    execution = sfn.start_execution(stateMachineArn=machine, input=json.dumps({"launch": "now"}))["executionArn"]
    assert post_json(f"{server_with_the_dialect}/_emulator/clock", b'{"advance": 0}')[0] == 200  # once idle
    described = sfn.describe_execution(executionArn=execution)
    assert described["status"] == "SUCCEEDED"
    assert json.loads(described["output"]) == {"ticks": [3, 2, 1], "input": {"launch": "now"}}
    assert described["stopDate"] - described["startDate"] == timedelta(seconds=1800)  # on the virtual clock


def test_an_installed_dialect_validates_and_is_chosen_by_its_tag(server_with_the_dialect: str) -> None:
    sfn = make_client(server_with_the_dialect)
    bad = json.dumps({"countdown": {"from": "three"}})
    diagnostics = sfn.validate_state_machine_definition(definition=bad)["diagnostics"]
    assert [d["message"] for d in diagnostics] == ["countdown needs an integer 'from' >= 0 and 'everySeconds'"]
    with pytest.raises(sfn.exceptions.InvalidDefinition, match="countdown needs an integer"):
        sfn.create_state_machine(name="bad-countdown", definition=bad, roleArn=ROLE)
    tagged = sfn.create_state_machine(name="tagged", definition=json.dumps({"countdown": {"from": 0, "everySeconds": 1}}),
                                      roleArn=ROLE, tags=[{"key": dialects.DIALECT_TAG, "value": "countdown"}])
    assert tagged["stateMachineArn"].endswith(":tagged")


def test_the_emulators_own_extension_dialects_are_found_the_same_way() -> None:
    found = {point.load().name for point in entry_points(group=dialects.ENTRY_POINT_GROUP)}
    assert found == {"serverless-workflow", "serverless-workflow-0.x", "serverless-workflow-1.0", "sm4c"}
    assert set(dialects.names()) >= found | {"asl"}
