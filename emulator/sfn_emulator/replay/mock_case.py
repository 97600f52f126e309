"""A recorded execution as a test case in AWS Step Functions Local's mock configuration format
(`resources.mock_file`), with its input and expected end beside it, in one directory:

- ``MockConfigFile.json``: ``StateMachines.MACHINE.TestCases.CASE`` maps each Task state to its
  mocked response, ``MockedResponses`` holds the recorded answers in the order the state was
  invoked (every retry and every entry takes the next number, as Step Functions Local counts);
  test cases already in the file are kept;
- ``MACHINE.asl.json``: the definition, when known;
- ``CASE.test.json``: ``{"stateMachine", "testCase", "definition", "input", "expect": {"status",
  "output" | "error", "cause"}}``, what `read_test_case` reads and the pytest fixture's
  `run_test_case` runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct

from sfn_emulator.protocol.history_events import EXECUTION_END_STATUS, EXECUTION_SUCCEEDED, details_of
from sfn_emulator.replay.recording import read_recording

MOCK_CONFIG_FILE = "MockConfigFile.json"
TEST_SUFFIX = ".test.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class TestCaseFile(Struct, frozen=True):
    """A `CASE.test.json` read back, its paths resolved from its directory."""

    __test__ = False  # not a pytest class

    path: Path
    state_machine: str
    test_case: str
    definition: Path
    input: Any
    expect: dict[str, Any]

    @property
    def mock_config(self) -> Path:
        return self.path.parent / MOCK_CONFIG_FILE


def mock_case_documents(events: Sequence[Mapping[str, Any]], *, state_machine: str, test_case: str,
                        definition: str | None, existing_mocks: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The files of a test case (name -> JSON document) from a checked history (`history.history_events`)."""
    recording = read_recording(events)
    responses: dict[str, dict[str, Any]] = {}
    states: dict[str, str] = {}
    for key, answer in sorted(recording.answers.items(), key=lambda item: item[1].scheduled_event_id):
        name = states.setdefault(key.state, f"{test_case}.{key.state}")
        entries = responses.setdefault(name, {})
        entries[str(len(entries))] = ({"Throw": {"Error": answer.error, "Cause": answer.cause or ""}} if answer.failed
                                      else {"Return": answer.result})
    mocks = json.loads(json.dumps(existing_mocks)) if existing_mocks else {}
    cases = mocks.setdefault("StateMachines", {}).setdefault(state_machine, {}).setdefault("TestCases", {})
    cases[test_case] = states
    mocked = mocks.setdefault("MockedResponses", {})
    for name in [name for name in mocked if name.startswith(f"{test_case}.")]:
        del mocked[name]
    mocked.update(responses)
    end = recording.end
    details = details_of(end) or {}
    expect: dict[str, Any] = {"status": EXECUTION_END_STATUS[end["type"]]}
    if end["type"] == EXECUTION_SUCCEEDED:
        expect["output"] = json.loads(details["output"]) if "output" in details else None
    else:
        expect.update({key: details[key] for key in ("error", "cause") if key in details})
    definition_file = f"{_file_name(state_machine)}.asl.json"
    documents: dict[str, Any] = {MOCK_CONFIG_FILE: mocks}
    if definition is not None:
        documents[definition_file] = json.loads(definition)
    documents[f"{_file_name(test_case)}{TEST_SUFFIX}"] = {
        "stateMachine": state_machine, "testCase": test_case, "definition": definition_file,
        "input": recording.input, "expect": expect}
    return documents


def write_test_case(directory: Path, events: Sequence[Mapping[str, Any]], *, state_machine: str, test_case: str,
                    definition: str | None) -> list[Path]:
    """Write the test case's files into `directory` (made if missing), merging into its mock configuration."""
    directory.mkdir(parents=True, exist_ok=True)
    existing_file = directory / MOCK_CONFIG_FILE
    existing = json.loads(existing_file.read_text(encoding="utf-8")) if existing_file.exists() else None
    written = []
    for name, document in mock_case_documents(events, state_machine=state_machine, test_case=test_case,
                                              definition=definition, existing_mocks=existing).items():
        path = directory / name
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


def read_test_case(path: str | Path) -> TestCaseFile:
    """A test case file, or the only one in a directory; ValueError when it is not one."""
    path = Path(path)
    if path.is_dir():
        found = sorted(path.glob(f"*{TEST_SUFFIX}"))
        if len(found) != 1:
            raise ValueError(f"{path} holds {len(found)} test case files (*{TEST_SUFFIX}): name one")
        path = found[0]
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the test case {path}: {exc}") from None
    missing = [key for key in ("stateMachine", "testCase", "definition", "expect") if key not in document]
    if missing:
        raise ValueError(f"the test case {path} lacks {', '.join(missing)}")
    return TestCaseFile(path, document["stateMachine"], document["testCase"], path.parent / document["definition"],
                        document.get("input"), document["expect"])


def _file_name(name: str) -> str:
    return _UNSAFE.sub("_", name) or "StateMachine"
