"""What importing the Python API, and one plain in-process run, load: the cost of a test's first line.

Import time is measured by `benchmarks/run.py`; these tests pin the rule behind it (every package a
plain `Emulator()` and a run do not need is imported on first use) as sets of modules, not timings.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Loaded only by the feature that needs them: AWS integrations (moto, boto3), the HTTP app (Flask),
# JSONata expressions, a workflow's regular expressions, YAML or jq definitions, Amazon SWF, graphs and
# coverage reports, mock files, email-style dates (nested executions' SDK metadata), hashes (OpenSSL),
# TestState, a Distributed Map's manifests (S3 Inventory, Athena), the installed packages' entry points and
# the extension dialects they name (found when a definition is not ASL), the web console.
_ON_FIRST_USE = ("moto", "boto3", "flask", "werkzeug", "jsonata", "regex", "yaml", "jq", "sfn_emulator.swf",
                 "sfn_emulator.graphs", "sfn_emulator.coverage.model", "sfn_emulator.resources.mocks",
                 "sfn_emulator.persistence", "email", "hashlib", "sfn_emulator.engine.single_state",
                 "sfn_emulator.service.single_state_requests", "sfn_emulator.engine.item_manifests",
                 "importlib.metadata", "sfn_emulator.dialects.serverless_workflow", "sfn_emulator.dialects.sm4c",
                 "sfn_emulator.console")

_PASS_MACHINE = {"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": {"ok": True}, "End": True}}}


def _loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code`."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    return set(json.loads(finished.stdout.splitlines()[-1]))


def _unwanted(loaded: set[str]) -> list[str]:
    return sorted(name for name in loaded if any(name == package or name.startswith(package + ".")
                                                 for package in _ON_FIRST_USE))


def test_importing_the_python_api_loads_no_optional_package() -> None:
    loaded = _loaded_after("import sfn_emulator.api, sfn_emulator.runtime\nfrom sfn_emulator import Emulator, run_definition")
    assert "sfn_emulator.runtime" in loaded and "sfn_emulator.engine" in loaded
    assert _unwanted(loaded) == []


def test_a_plain_in_process_run_loads_no_optional_package() -> None:
    code = (
        "from sfn_emulator import Emulator, Settings\n"
        "with Emulator(Settings(log_level='WARNING')) as emulator:\n"
        "    service = emulator.service\n"
        f"    arn = service.create_state_machine(name='m', definition={json.dumps(json.dumps(_PASS_MACHINE))},\n"
        "                                       roleArn='arn:aws:iam::123456789012:role/r')['stateMachineArn']\n"
        "    run = service.start_execution(stateMachineArn=arn, input='{}')['executionArn']\n"
        "    emulator.clock.run_until_idle(60)\n"
        "    assert service.describe_execution(executionArn=run)['status'] == 'SUCCEEDED'\n"
    )
    loaded = _loaded_after(code)
    assert _unwanted(loaded) == []


@pytest.mark.parametrize(("code", "package"), [
    ("from sfn_emulator import Emulator, Settings\nEmulator(Settings(log_level='WARNING')).swf", "sfn_emulator.swf"),
    ("from sfn_emulator.coverage import CoverageRecorder\nCoverageRecorder().report()", "sfn_emulator.coverage.model"),
    ("from sfn_emulator.asl.jsonata_functions import _hash\n_hash('a')", "hashlib"),
    ("from sfn_emulator import Emulator, Settings\nEmulator(Settings(log_level='WARNING')).service.test_state("
     "definition='{\"Type\": \"Pass\", \"End\": true}')", "sfn_emulator.engine.single_state"),
])
def test_a_package_loaded_on_first_use_loads_when_used(code: str, package: str) -> None:
    """The deferred imports still happen: the feature works where it is first used."""
    assert package in _loaded_after(code)
