"""SM4C's `events`, `functions` and `retries` given by URI: read once when the definition is validated
or created, from a `file://` URI under a directory the operator allows, a path relative to the
definition's file, or http(s) (a real local HTTP server here), in JSON or YAML; whatever cannot be
read is a diagnostic at the attribute, which never tells whether a file outside the allowed
directories exists, nor quotes what a file holds."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from helpers.dialect_driver import Driver
from helpers.hostile_http import HostileServer

from sfn_emulator.api import run_definition
from sfn_emulator.cli.main import main
from sfn_emulator.dialects import local_files
from sfn_emulator.dialects.sm4c import references

ROLE = "arn:aws:iam::123456789012:role/sm4c"
EVENTS = [{"name": "Paid", "type": "order.paid", "source": "payments"}]
FUNCTIONS = [{"name": "charge", "operation": "billing#charge"}]
RETRIES = [{"name": "twice", "maxAttempts": 2, "delay": "PT1S"}]
EVENTS_YAML = "- name: Paid\n  type: order.paid\n  source: payments\n"
FUNCTIONS_IN_OBJECT = {"functions": FUNCTIONS}  # the array under its own key, as a Serverless Workflow file has it


def _document(events: Any, functions: Any, retries: Any) -> dict[str, Any]:
    """Charge (retried by the policy 'twice'), then wait for the event 'Paid'."""
    return {
        "id": "order", "version": "1.0", "name": "Order", "events": events, "functions": functions, "retries": retries,
        "states": [
            {"name": "Charge", "start": True,
             "enterAction": {"type": "invokeFunction", "functionName": "charge", "waitForCompletion": True,
                             "arguments": {"amount": "${ .amount }"},
                             "errorHandlers": [{"retryPolicy": "twice"}]},
             "enterResultHandler": ".charged = $value",
             "transitions": [{"nextState": "Paid", "eventGroups": [{"events": ["Paid"],
                                                                    "resultHandler": ".paid = ($value | .Data)"}]}]},
            {"name": "Paid"},
        ],
    }


def _charge_failing_once() -> Any:
    calls = []

    def charge(event: Any, context: Any) -> Any:
        calls.append(event)
        if len(calls) == 1:
            raise RuntimeError("card declined")
        return {"charged": event["amount"]}

    return charge


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """(a directory, the http:// URL a real local HTTP server serves it at)."""
    handler = partial(_QuietHandler, directory=str(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


def _write(directory: Path, files: dict[str, Any]) -> None:
    for name, content in files.items():
        (directory / name).write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")


@pytest.fixture
def files_under(driver: Driver) -> Iterator[Any]:
    """`files_under(*roots)`: the operator's allowed roots for this test (none again after it)."""
    yield lambda *roots: local_files.allow_under(roots)
    local_files.allow_under(())


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run_case(driver: Driver, document: dict[str, Any]) -> None:
    """The document runs as if its definitions were inline: the retried function, the awaited event."""
    driver.emulator.functions.register("billing#charge", _charge_failing_once())
    definition = json.dumps(document)
    assert driver.call("validate_state_machine_definition", definition=definition)["result"] == "OK"
    arn = driver.call("create_state_machine", name="order", roleArn=ROLE, definition=definition)["stateMachineArn"]
    execution = driver.call("start_execution", stateMachineArn=arn, input=json.dumps({"amount": 5}))["executionArn"]
    driver.settle()
    driver.run_steps([{"advance": 1}, {"publish": {"specversion": "1.0", "id": "e1", "source": "payments",
                                                  "type": "order.paid", "data": {"ok": True}}}])
    driver.check_execution(execution, {"status": "SUCCEEDED", "output": {"amount": 5, "charged": {"charged": 5},
                                                                       "paid": {"ok": True}}})


@pytest.mark.parametrize("how", ["file", "http"])
def test_definitions_by_uri_run_as_the_inline_ones(how: str, served: tuple[Path, str], driver: Driver,
                                                   files_under: Any) -> None:
    directory, url = served
    files_under(directory)
    _write(directory, {"events.yaml": EVENTS_YAML, "functions.json": FUNCTIONS_IN_OBJECT, "retries.json": RETRIES})
    base = directory.as_uri() if how == "file" else url
    _run_case(driver, _document(f"{base}/events.yaml", f"{base}/functions.json", f"{base}/retries.json"))


def test_paths_relative_to_the_definition_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """run_definition and `sfn-emulator validate|run|graph` read a definition file's relative references from its
    directory, wherever the command runs."""
    (tmp_path / "shared").mkdir()
    _write(tmp_path / "shared", {"events.json": EVENTS, "functions.yaml": "- name: charge\n  operation: billing#charge\n",
                                 "retries.json": {"retries": RETRIES}})
    document = _document("shared/events.json", "shared/functions.yaml", "./shared/retries.json")
    document["states"][0]["transitions"] = [{"nextState": "Paid", "timeout": "PT1S"}]
    path = tmp_path / "flows" / "order.sm4c.json"
    path.parent.mkdir()
    _write(path.parent, {path.name: json.dumps(document).replace("shared/", "../shared/")})
    result = run_definition(path, {"amount": 3}, functions={"billing#charge": _charge_failing_once()})
    result.assert_succeeded(output={"amount": 3, "charged": {"charged": 3}})
    assert main(["validate", str(path)]) == 0
    assert main(["graph", str(path)]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(("field", "file", "content", "message"), [
    ("events", "missing.json", None, "Cannot read"),
    ("functions", "functions.json", {"name": "charge"}, "must be an array (or an object with 'functions')"),
    ("retries", "retries.yaml", "- name: [unclosed", "neither JSON nor YAML"),
    ("events", "events.json", [{"type": "order.paid"}], "These fields are required: [name]"),
], ids=["missing", "not-an-array", "not-json-or-yaml", "invalid-definition"])
def test_unreadable_definitions_are_diagnostics_at_the_attribute(field: str, file: str, content: Any, message: str,
                                                                 tmp_path: Path, driver: Driver, files_under: Any) -> None:
    files_under(tmp_path)
    if content is not None:
        _write(tmp_path, {file: content})
    document = _document(EVENTS, FUNCTIONS, RETRIES)
    document[field] = (tmp_path / file).as_uri()
    _refused(driver, document, f"/{field}", message)


@pytest.mark.parametrize(("reference", "message"), [
    ("events.json", "relative reference"),  # a definition sent to the API has no file to be relative to
    ("http://127.0.0.1:{closed_port}/events.json", "Cannot fetch"),
    ("ftp://example.com/events.json", "the scheme 'ftp'"),
], ids=["relative", "unreachable", "ftp"])
def test_references_a_definition_cannot_reach(reference: str, message: str, driver: Driver) -> None:
    document = _document(reference.format(closed_port=_closed_port()), FUNCTIONS, RETRIES)
    _refused(driver, document, "/events", message)


def test_a_missing_http_resource(served: tuple[Path, str], driver: Driver) -> None:
    _refused(driver, _document(f"{served[1]}/nothing.json", FUNCTIONS, RETRIES), "/events", "HTTP Error 404")


def _refused(driver: Driver, document: dict[str, Any], location: str, message: str) -> None:
    definition = json.dumps(document)
    answer = driver.call("validate_state_machine_definition", definition=definition)
    assert answer["result"] == "FAIL"
    [diagnostic] = [d for d in answer["diagnostics"] if d.get("location", "").startswith(location)]
    assert diagnostic["code"] == "SCHEMA_VALIDATION_FAILED"
    assert message in diagnostic["message"], diagnostic
    if driver.api is not None:
        with pytest.raises(driver.api.exceptions.InvalidDefinition):
            driver.call("create_state_machine", name="order", roleArn=ROLE, definition=definition)


@pytest.mark.parametrize(("path", "message"), [
    ("/forever", "larger than 1048576 bytes"),
    ("/huge", "declares 104857600 bytes"),
    ("/drip", "no complete answer within 1 seconds"),
], ids=["streams-forever", "declares-100MB", "drips"])
def test_a_document_by_url_is_read_within_its_size_and_deadline(path: str, message: str, hostile_server: HostileServer,
                                                               driver: Driver, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(references, "FETCH_DEADLINE_SECONDS", 1.0)  # 5 s by default, for the whole fetch
    _refused(driver, _document(EVENTS, hostile_server.url + path, RETRIES), "/functions", message)


def test_a_slow_document_holds_only_its_own_call(sfn: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The documents are read before the service takes its lock: while a CreateStateMachine waits for its
    `functions` URL, other calls are answered (the document is released only after one has been)."""
    monkeypatch.setattr(references, "FETCH_DEADLINE_SECONDS", 120.0)
    held = HostileServer()
    held.held_body = json.dumps(FUNCTIONS).encode()
    created: list[Any] = []
    name = f"slow-{uuid.uuid4().hex[:8]}"
    definition = json.dumps(_document(EVENTS, held.url + "/held", RETRIES))
    creating = threading.Thread(target=lambda: created.append(
        sfn.create_state_machine(name=name, roleArn=ROLE, definition=definition)), daemon=True)
    try:
        creating.start()
        end = time.monotonic() + 120
        while not held.received("/held"):
            assert time.monotonic() < end, "the document was not asked for"
            time.sleep(0.01)
        assert name not in [machine["name"] for machine in sfn.list_state_machines()["stateMachines"]]
        held.release.set()
        creating.join(120)
    finally:
        held.close()
    assert created and created[0]["stateMachineArn"].endswith(f":{name}")


OUTSIDE = "is not under a directory definitions may read files from (the operator allows them with " \
          "--allowed-file-roots / SFN_EMULATOR_ALLOWED_FILE_ROOTS; "


@pytest.mark.parametrize("roots", ["none", "elsewhere"])
def test_a_file_outside_the_allowed_roots_gets_one_message_whether_it_exists_or_not(
        roots: str, tmp_path: Path, driver: Driver, files_under: Any) -> None:
    if roots == "elsewhere":
        (tmp_path / "allowed").mkdir()
        files_under(tmp_path / "allowed")
    (tmp_path / "secret.json").write_text(json.dumps(EVENTS), encoding="utf-8")
    (tmp_path / "allowed-link").mkdir()
    (tmp_path / "allowed-link" / "link.json").symlink_to(tmp_path / "secret.json")
    messages = {}
    for name, path in {"passwd": Path("/etc/passwd"), "secret": tmp_path / "secret.json",
                       "missing": tmp_path / "missing.json", "symlink": tmp_path / "allowed-link" / "link.json"}.items():
        answer = driver.call("validate_state_machine_definition",
                             definition=json.dumps(_document(path.as_uri(), FUNCTIONS, RETRIES)))
        [diagnostic] = [d for d in answer["diagnostics"] if d["location"] == "/events"]
        assert OUTSIDE in diagnostic["message"] and "root:" not in diagnostic["message"], diagnostic
        messages[name] = diagnostic["message"].replace(path.as_uri(), "URI")
    assert len(set(messages.values())) == 1, messages


def test_a_symbolic_link_out_of_an_allowed_root_is_outside_it(tmp_path: Path, driver: Driver, files_under: Any) -> None:
    (tmp_path / "allowed").mkdir()
    (tmp_path / "allowed" / "passwd.json").symlink_to("/etc/passwd")
    files_under(tmp_path / "allowed")
    _refused(driver, _document((tmp_path / "allowed" / "passwd.json").as_uri(), FUNCTIONS, RETRIES), "/events", OUTSIDE)


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_only_regular_files_are_read_under_an_allowed_root(kind: str, tmp_path: Path, driver: Driver,
                                                           files_under: Any) -> None:
    """A FIFO would block the reading thread for ever, /dev/zero never ends: neither is opened for reading."""
    if kind == "fifo":
        path = tmp_path / "events.json"
        os.mkfifo(path)
        files_under(tmp_path)
    elif kind == "device":
        path = Path("/dev/zero")
        files_under(Path("/dev"))
    else:
        path = tmp_path / "events.json"
        path.mkdir()
        files_under(tmp_path)
    _refused(driver, _document(path.as_uri(), FUNCTIONS, RETRIES), "/events",
             "it is not a regular file")


def test_a_file_larger_than_a_definition_may_be_is_not_read(tmp_path: Path, driver: Driver, files_under: Any) -> None:
    files_under(tmp_path)
    (tmp_path / "events.json").write_text("[" + " " * local_files.MAX_BYTES + "]", encoding="utf-8")
    _refused(driver, _document((tmp_path / "events.json").as_uri(), FUNCTIONS, RETRIES), "/events",
             f"it is larger than {local_files.MAX_BYTES} bytes")


def test_a_definition_file_naming_a_fifo_is_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Read from its file, the definition reads what it names itself, by the same rules."""
    os.mkfifo(tmp_path / "events.json")
    path = tmp_path / "order.sm4c.json"
    path.write_text(json.dumps(_document("events.json", FUNCTIONS, RETRIES)), encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    assert "Cannot read 'events.json' (the 'events'): it is not a regular file" in capsys.readouterr().err
