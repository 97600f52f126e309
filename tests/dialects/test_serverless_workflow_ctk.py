"""The Serverless Workflow DSL 1.0 conformance test kit (`ctk/features/*.feature` of the
specification, in fixtures/serverless_workflow_ctk/: see its ORIGIN.md), every scenario run
over HTTP with boto3 and in-process, and every example of the specification accepted at creation.

The feature files are read with the Gherkin parser of the Cucumber project (`gherkin-official`);
the steps they use are implemented here. Scenarios that call the public pet store and httpbin call
a local server the test starts instead (the hosts are replaced in the definition; the paths, methods
and answers' shapes are those of the public services), since tests do not reach the Internet.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
import yaml
from gherkin.parser import Parser
from helpers.dialect_driver import Driver
from helpers.paths import FIXTURES_ROOT

KIT = FIXTURES_ROOT / "serverless_workflow_ctk"
ROLE = "arn:aws:iam::123456789012:role/sw"
EXTERNAL_HOSTS = ("https://petstore.swagger.io", "https://httpbin.org")
LEFT_OUT = {
    "Call OpenAPI With Content Output": "an OpenAPI call needs the service's OpenAPI document: not run (fails naming the task)",
    "Call OpenAPI With Response Output": "an OpenAPI call needs the service's OpenAPI document: not run (fails naming the task)",
}
AT_ODDS_WITH_THE_SPECIFICATION = {
    "Try Handle Caught Error": "the scenario catches the type .../dsl/errors/types/communication; the specification's "
                               "standard type of a failed call is https://serverlessworkflow.io/spec/1.0.0/errors/"
                               "communication (dsl-reference.md, Standard error types), which the emulator raises",
}


def _scenarios() -> list[Any]:
    found = []
    for path in sorted((KIT / "ctk" / "features").glob("*.feature")):
        feature = Parser().parse(path.read_text(encoding="utf-8"))["feature"]
        for child in feature["children"]:
            scenario = child.get("scenario")
            if scenario is None:
                continue
            name = scenario["name"]
            marks = ([pytest.mark.skip(reason=LEFT_OUT[name])] if name in LEFT_OUT else
                     [pytest.mark.xfail(reason=AT_ODDS_WITH_THE_SPECIFICATION[name], strict=True)]
                     if name in AT_ODDS_WITH_THE_SPECIFICATION else [])
            found.append(pytest.param(scenario["steps"], id=f"{path.stem}: {scenario['name']}", marks=marks))
    return found


PETS = {1: {"id": 1, "category": {"id": 1, "name": "dogs"}, "name": "doggie", "photoUrls": [], "tags": [], "status": "available"},
        2: {"id": 2, "category": {"id": 2, "name": "cats"}, "name": "Milou", "photoUrls": [], "tags": [], "status": "available"}}


class _PublicServices(BaseHTTPRequestHandler):
    """The answers of the pet store (`/v2/pet/{id}`, `/v2/pet/findByStatus`) and of httpbin's
    `/basic-auth/{user}/{password}` the scenarios call."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        url = urlparse(self.path)
        if url.path == "/v2/pet/findByStatus":
            status = parse_qs(url.query).get("status", [""])[0]
            return self._answer(200, [pet for pet in PETS.values() if pet["status"] == status])
        found = re.fullmatch(r"/v2/pet/(\d+)", url.path)
        if found and int(found.group(1)) in PETS:
            return self._answer(200, PETS[int(found.group(1))])
        if url.path.startswith("/v2/pet/"):
            return self._answer(404, {"code": 404, "type": "unknown", "message": "java.lang.NumberFormatException"})
        found = re.fullmatch(r"/basic-auth/([^/]+)/([^/]+)", url.path)
        if found:
            expected = "Basic " + base64.b64encode(f"{found.group(1)}:{found.group(2)}".encode()).decode()
            if self.headers.get("Authorization") == expected:
                return self._answer(200, {"authenticated": True, "user": found.group(1)})
            return self._answer(401, {})
        return self._answer(404, {})

    def _answer(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        return


@pytest.fixture(scope="module")
def public_services() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _PublicServices)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _Scenario:
    """One scenario's state as its steps build it: the definition, the input, then the execution."""

    def __init__(self, driver: Driver, local: str) -> None:
        self.driver, self.local = driver, local
        self.definition = ""
        self.input: Any = {}
        self.described: dict[str, Any] = {}
        self.entered: list[str] = []

    def run(self) -> None:
        definition = self.definition
        for host in EXTERNAL_HOSTS:
            definition = definition.replace(host, self.local)
        arn = self.driver.call("create_state_machine", name="ctk", roleArn=ROLE, definition=definition)["stateMachineArn"]
        execution = self.driver.call("start_execution", stateMachineArn=arn, input=json.dumps(self.input))["executionArn"]
        self.driver.settle()
        self.described = self.driver.call("describe_execution", executionArn=execution)
        history = self.driver.call("get_execution_history", executionArn=execution, maxResults=1000)["events"]
        self.entered = [event["stateEnteredEventDetails"]["name"] for event in history if event["type"].endswith("StateEntered")]

    @property
    def output(self) -> Any:
        assert self.described["status"] == "SUCCEEDED", self.described
        return json.loads(self.described["output"])

    def then(self, text: str, argument: Any) -> None:
        if text == "the workflow should complete":
            assert self.described["status"] == "SUCCEEDED", (self.described.get("error"), self.described.get("cause"))
        elif text == "the workflow should complete with output:":
            assert self.output == argument
        elif text.startswith("the workflow should fault"):
            assert self.described["status"] == "FAILED", self.described
            if argument is not None:
                error = json.loads(self.described["cause"])
                assert {key: error.get(key) for key in argument} == argument, error
        elif found := re.fullmatch(r"the workflow output should have properties (.*)", text):
            for path in re.findall(r"'([^']*)'", found.group(1)):
                _member(self.output, path)
        elif found := re.fullmatch(r"the workflow output should have a '([^']*)' property with value:", text):
            assert _member(self.output, found.group(1)) == argument
        elif found := re.fullmatch(r"the workflow output should have a '([^']*)' property containing (\d+) items", text):
            assert len(_member(self.output, found.group(1))) == int(found.group(2))
        elif found := re.fullmatch(r"(\S+) should run first", text):
            assert self.entered[0] == found.group(1), self.entered
        elif found := re.fullmatch(r"(\S+) should run last", text):
            assert self.entered[-1] == found.group(1), self.entered
        elif found := re.fullmatch(r"(\S+) should run after (\S+)", text):
            assert self.entered.index(found.group(1)) > self.entered.index(found.group(2)), self.entered
        else:
            raise AssertionError(f"no step implements 'Then {text}'")


def _member(value: Any, path: str) -> Any:
    for name in path.split("."):
        assert isinstance(value, dict) and name in value, (path, value)
        value = value[name]
    return value


@pytest.mark.parametrize("steps", _scenarios())
def test_conformance_scenario(steps: list[dict[str, Any]], driver: Driver, public_services: str) -> None:
    scenario = _Scenario(driver, public_services)
    for step in steps:
        text = step["text"]
        argument = yaml.safe_load(step["docString"]["content"]) if "docString" in step else None
        if text == "a workflow with definition:":
            scenario.definition = step["docString"]["content"]
        elif text == "given the workflow input is:":
            scenario.input = argument
        elif text == "the workflow is executed":
            scenario.run()
        else:
            scenario.then(text, argument)


EXAMPLES = sorted((KIT / "examples").glob("*.yaml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.stem for path in EXAMPLES])
def test_every_specification_example_is_accepted(path: Path, driver: Driver) -> None:
    definition = path.read_text(encoding="utf-8")
    answer = driver.call("validate_state_machine_definition", definition=definition)
    assert answer["result"] == "OK", answer["diagnostics"]
    assert driver.call("create_state_machine", name="example", roleArn=ROLE, definition=definition)["stateMachineArn"]


LATER_DRAFT_EXAMPLES = sorted((KIT / "v0x").glob("*.json"))
INVALID_LATER_DRAFT_EXAMPLES = {  # the specification's own examples that break its rules, and where
    "v0.6-09-jobmonitoring": ["/states/0/transition"],  # "WaitForCompletion'" (a stray quote)
    "v0.6-13-customercreditcheck": ["/states/0/action/functionRef", "/states/1/dataConditions/0/transition"],
    "v0.6-16-vetappointmentworkflow": ["/events/0", "/events/1", "/states/0/actions/0/eventRef/triggerEventRef",
                                       "/states/0/actions/0/eventRef/resultEventRef"],  # events without a type
    "v0.6-18-patientonboarding": ["/states/0/onEvents/0/eventRefs", "/states/0/onEvents/0/actions/0/functionRef"],
    "v0.6-19-order": ["/timeouts/workflowExecTimeout"],  # 'PT30D' is not ISO 8601 (days come before the T)
    "v0.6-22-vitalscheck": ["/states/1/dataConditions/0/condition"],  # a JsonPath filter where jq is required
    "v0.6-23-booklending": ["/states/6/timeDelay", "/states/4/eventConditions/1/transition"],  # 'PT2W'
    "v0.6-24-fillgrassofwater": ["/states/1/transition"],
    "v0.7-13-customercreditcheck": ["/states/0/action/functionRef"],
    "v0.7-16-vetappointmentworkflow": ["/events/0", "/events/1", "/states/0/actions/0/eventRef/triggerEventRef",
                                       "/states/0/actions/0/eventRef/resultEventRef"],
    "v0.7-18-patientonboarding": ["/states/0/onEvents/0/eventRefs", "/states/0/onEvents/0/actions/0/functionRef"],
    "v0.7-19-order": ["/timeouts/workflowExecTimeout"],
    "v0.7-21-checkcarvitals": ["/states/2/defaultCondition/transition"],
    "v0.7-22-vitalscheck": ["/states/0/actions/0/functionRef", "/states/0/actions/1/functionRef",
                            "/states/0/actions/2/functionRef", "/states/0/actions/3/functionRef",
                            "/states/0/end/produceEvents/0/eventRef"],
    "v0.7-23-booklending": ["/states/6/duration", "/states/4/eventConditions/1/transition"],
    "v0.7-24-fillgrassofwater": ["/states/1/transition"],
    "v0.8-15-customercreditcheck": ["/states/0/action/functionRef"],  # calls a function the document does not define
    "v0.8-20-patientonboarding": ["/states/0/onEvents/0/eventRefs", "/states/0/onEvents/0/actions/0/functionRef"],
    "v0.8-21-order": ["/timeouts/workflowExecTimeout"],
    "v0.8-24-vitalscheck": ["/states/0/actions/0/functionRef", "/states/0/actions/1/functionRef",
                            "/states/0/actions/2/functionRef", "/states/0/actions/3/functionRef",
                            "/states/0/end/produceEvents/0/eventRef"],
    "v0.8-25-booklending": ["/states/6/duration", "/states/4/eventConditions/1/transition"],
    "v0.8-28-customerbankingtransactions": ["/states/0/actions/1/functionRef"],  # 'Smaller Tx' defined as 'Smaller T'
}


@pytest.mark.parametrize("path", LATER_DRAFT_EXAMPLES, ids=[path.stem for path in LATER_DRAFT_EXAMPLES])
def test_later_draft_examples_are_accepted_unless_they_break_the_rules(path: Path, driver: Driver) -> None:
    definition = path.read_text(encoding="utf-8")
    answer = driver.call("validate_state_machine_definition", definition=definition)
    expected = INVALID_LATER_DRAFT_EXAMPLES.get(path.stem)
    if expected is None:
        assert answer["result"] == "OK", answer["diagnostics"]
        assert driver.call("create_state_machine", name="example", roleArn=ROLE, definition=definition)["stateMachineArn"]
    else:
        assert [d["location"] for d in answer["diagnostics"]] == expected
