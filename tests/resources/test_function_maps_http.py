"""`--functions FILE`: a JSON or YAML map of Lambda function name or full ARN to
`package.module:callable` or `path/to/file.py:callable` (relative to the map file), or an object
`{"handler": ..., "timeout": seconds}` giving the function its own function timeout, loaded through
`Settings(functions=...)` and, in one real process, through `SFN_EMULATOR_FUNCTIONS`.

The maps and handlers are in fixtures/resources/functions/; `shop.pricing` is found on the
import path, as an installed package of the user's would be.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flow import ACCOUNT, Flow, Server, outcome, task
from helpers.clients import make_client
from helpers.paths import FIXTURES_ROOT, REPOSITORY

from sfn_emulator.config import Settings
from sfn_emulator.resources.function_map import FunctionMapError
from sfn_emulator.runtime import Emulator

FUNCTIONS = FIXTURES_ROOT / "resources" / "functions"
ORDER = {"name": "Ada", "lines": [{"price": 2.5, "quantity": 2}, {"price": 1, "quantity": 3}], "price": 10}
CALLS = {
    "greet": ({"Parameters": {"name.$": "$.name"}}, {"greeting": "hello Ada", "function": "greet"}),
    "total": ({"Parameters": {"lines.$": "$.lines"}}, {"total": 8.0}),
    "discount": ({"Parameters": {"price.$": "$.price"}}, {"price": 9.0}),
}


@pytest.fixture(scope="module", autouse=True)
def shop_on_the_import_path() -> Iterator[None]:
    sys.path.insert(0, str(FUNCTIONS))
    yield
    sys.path.remove(str(FUNCTIONS))
    for name in [name for name in sys.modules if name == "shop" or name.startswith("shop.")]:
        del sys.modules[name]


@pytest.fixture(scope="module", params=["map.json", "map.yaml"])
def flow(request: pytest.FixtureRequest, start_server: Callable[..., Server]) -> Flow:
    return Flow(start_server(functions=FUNCTIONS / request.param))


@pytest.mark.parametrize("function", sorted(CALLS))
def test_each_mapped_function_answers_by_function_arn(flow: Flow, function: str) -> None:
    fields, expected = CALLS[function]
    described = flow.run(task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:{function}", **fields), ORDER)
    assert outcome(described) == {"status": "SUCCEEDED", "output": expected}


@pytest.mark.parametrize("function", sorted(CALLS))
def test_each_mapped_function_answers_lambda_invoke(flow: Flow, function: str) -> None:
    fields, expected = CALLS[function]
    parameters = {"FunctionName": function, "Payload": fields["Parameters"]}
    described = flow.run(task("arn:aws:states:::lambda:invoke", Parameters=parameters, OutputPath="$.Payload"), ORDER)
    assert outcome(described) == {"status": "SUCCEEDED", "output": expected}


@pytest.mark.parametrize(("text", "message"), [
    ('{"greet": "orders.py:no_such_handler"}',
     "functions map entry 'greet': orders.py has no attribute 'no_such_handler'"),
    ('{"greet": "orders.py"}',
     "functions map entry 'greet': 'orders.py' is not 'file.py:callable' (relative to the map) or "
     "'package.module:callable'"),
    ('{"greet": "no_such_module_anywhere:greet"}',
     "functions map entry 'greet': no module named 'no_such_module_anywhere'; looked in the map's directory {dir}, "
     "the working directory {cwd} and sys.path. Name the file instead, relative to the map: "
     "'no_such_module_anywhere.py:greet'"),
    ('{"greet": "shop_nowhere.orders:greet"}',
     "functions map entry 'greet': no module named 'shop_nowhere'; looked in the map's directory {dir}, "
     "the working directory {cwd} and sys.path. Name the file instead, relative to the map: "
     "'shop_nowhere/orders.py:greet'"),
    ('{"greet": "lib/orders.py:greet"}',
     "functions map entry 'greet': there is no file {dir}/lib/orders.py (a file is named relative to the map's "
     "directory, {dir})"),
    ('["orders.py:greet"]', "the functions map {path} must be an object of function name or ARN -> "
                            "'file.py:callable' or 'package.module:callable'"),
    ('{"greet": {"handler": "orders.py:greet", "timeout": 0}}',
     "functions map entry 'greet': its timeout must be a number of seconds above 0 and at most 900, not 0"),
    ('{"greet": {"handler": "orders.py:greet", "timeout": "30"}}',
     "functions map entry 'greet': its timeout must be a number of seconds above 0 and at most 900, not '30'"),
    ('{"greet": {"handler": "orders.py:greet", "memory": 128}}',
     'functions map entry \'greet\': an object entry is {{"handler": "module:callable", "timeout": seconds}}; '
     "unknown key(s) memory"),
    ('{"greet": {"timeout": 3}}',
     'functions map entry \'greet\': an object entry is {{"handler": "module:callable", "timeout": seconds}}'),
])
def test_a_broken_map_is_refused_naming_the_entry(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "map.json"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "orders.py").write_text((FUNCTIONS / "orders.py").read_text(), encoding="utf-8")
    with pytest.raises(FunctionMapError) as refused:
        Emulator(Settings(functions=path))
    assert str(refused.value) == message.format(path=path, dir=tmp_path.resolve(), cwd=Path.cwd())


def test_a_module_entry_imports_from_the_maps_directory_and_from_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As a new user lays out a project: the map beside its module, or the command run from the project."""
    beside, project, elsewhere = (tmp_path / name for name in ("beside", "project", "elsewhere"))
    for folder in (beside, project, elsewhere):
        folder.mkdir()
    (beside / "beside_orders.py").write_text("def greet(event, context):\n    return 'beside'\n")
    (project / "project_orders.py").write_text("def greet(event, context):\n    return 'project'\n")
    (beside / "map.json").write_text('{"a": "beside_orders:greet"}')
    (elsewhere / "map.json").write_text('{"b": "project_orders:greet"}')
    monkeypatch.chdir(project)
    monkeypatch.setattr(sys, "path", list(sys.path))
    with Emulator(Settings(functions=beside / "map.json")) as one, Emulator(Settings(functions=elsewhere / "map.json")) as two:
        assert one.functions.lookup("a", "us-east-1", ACCOUNT)[0].handler(None, None) == "beside"
        assert two.functions.lookup("b", "us-east-1", ACCOUNT)[0].handler(None, None) == "project"
    for name in ("beside_orders", "project_orders"):
        sys.modules.pop(name, None)


def test_a_function_runs_for_its_own_timeout_or_the_emulators_default(
        tmp_path: Path, start_server: Callable[..., Server]) -> None:
    path = tmp_path / "map.json"
    path.write_text(json.dumps({"own": {"handler": f"{FUNCTIONS / 'orders.py'}:stall", "timeout": 0.1},
                                "default": f"{FUNCTIONS / 'orders.py'}:stall"}), encoding="utf-8")
    flow = Flow(start_server(functions=path, function_timeout=0.3))
    for name, seconds in (("own", "0.10"), ("default", "0.30")):
        for definition in (task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:{name}"),
                           task("arn:aws:states:::lambda:invoke", Parameters={"FunctionName": name})):
            described = flow.run(definition, {})
            assert (described["status"], described["error"]) == ("FAILED", "Sandbox.Timedout")
            assert json.loads(described["cause"])["errorMessage"].endswith(f" Error: Task timed out after {seconds} seconds")


def test_the_cli_reads_the_map_named_by_sfn_emulator_functions() -> None:
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPOSITORY), str(FUNCTIONS)]),
               "SFN_EMULATOR_FUNCTIONS": str(FUNCTIONS / "map.yaml")}
    process = subprocess.Popen([sys.executable, "-m", "sfn_emulator", "serve", "--port", "0", "--log-level", "WARNING"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=environ, cwd=REPOSITORY, text=True)
    try:
        assert process.stdout is not None
        banner = next(line for line in process.stdout if "serving AWS Step Functions on" in line)
        endpoint = re.search(r"on (http://\S+)", banner)
        assert endpoint is not None
        sfn = make_client(endpoint[1])
        definition = task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:greet", Parameters={"name": "Bo"})
        machine = sfn.create_state_machine(name="mapped", definition=json.dumps(definition), type="EXPRESS",
                                           roleArn=f"arn:aws:iam::{ACCOUNT}:role/r")["stateMachineArn"]
        answered = sfn.start_sync_execution(stateMachineArn=machine, input="{}")  # answers once it has ended
        assert json.loads(answered["output"]) == {"greeting": "hello Bo", "function": "greet"}
    finally:
        process.terminate()
        process.wait(timeout=30)
