"""A mock configuration file, in AWS Step Functions Local's format: read, checked, and held as a
`MockDocument` (the task resource that answers from it is `resources.mocks.MockConfig`).

The file (JSON, or YAML when it is named ``*.yaml``/``*.yml``)::

    {"StateMachines": {MACHINE: {"TestCases": {CASE: {STATE: RESPONSE_NAME}}}},
     "MockedResponses": {RESPONSE_NAME: {"0": {"Return": ...}, "1-2": {"Throw": {"Error": ..., "Cause": ...}}}}}

An execution started with ``stateMachineArn#CASE`` runs under that test case: each Task state the
case lists answers with its mocked response, every other Task runs for real. As in Step Functions
Local, the keys of a mocked response number the invocations of the state within one execution,
from 0: every retry and every new entry into the state (a loop, each Map iteration) takes the
next number. ``Return`` is the task's result as written (for ``lambda:invoke``, the whole Invoke
response); ``Throw`` fails the task with its Error and Cause.

What fails an execution with ``States.Runtime`` (never retried nor caught, so a broken test
setup cannot slip into a Catch path), the cause naming the file and the missing piece:
- an invocation past the last key (Step Functions Local fails the execution there too);
- a test case, or a state machine, that the file does not define;
- a file that was edited and no longer loads: every mocked execution fails with the load error
  (and it is logged) until the file is fixed, rather than running on stale mocks.

Validation is stricter than Step Functions Local where its leniency only hides mistakes (unknown
fields, overlapping or non-consecutive keys, a response with both Return and Throw), and as
lenient where it serves a purpose: a mocked response with no keys (``{}``, as generated files
produce) loads, and fails only if a state actually uses it.
"""

from __future__ import annotations

import bisect
import copy
import json
import re
from collections.abc import Mapping
from pathlib import Path
from functools import cache
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.protocol.definition_files import is_yaml_file, json_shaped_yaml_loader

if TYPE_CHECKING:
    import yaml

JSON = Any
_INVOCATION_KEY = re.compile(r"^(\d+)(?:-(\d+))?$")
_PLAIN_SEGMENT = re.compile(r"^[^.\s\[\]\"]+$")
_TOP_LEVEL_FIELDS = ("StateMachines", "MockedResponses")


class MockConfigError(ValueError):
    """A mock configuration that cannot be used; lists every problem found, each with where it is."""

    def __init__(self, source: str, problems: list[str]) -> None:
        super().__init__(f"mock config {source}: " + "; ".join(problems))
        self.source = source
        self.problems = problems


# -- the parsed configuration ---------------------------------------------------------------------

class Return(Struct, frozen=True):
    value: JSON

    def answer(self) -> JSON:
        return copy.deepcopy(self.value)  # each task gets its own copy, the configuration stays intact


class Throw(Struct, frozen=True):
    error: str
    cause: str | None

    def answer(self) -> JSON:
        raise StatesError(self.error, self.cause)


class MockedResponse(Struct, frozen=True):
    """One entry of MockedResponses: consecutive invocation ranges, from 0, each with its outcome."""

    name: str
    range_ends: tuple[int, ...]  # the inclusive last invocation of each range, ascending
    outcomes: tuple[Return | Throw, ...]

    def at(self, invocation: int) -> Return | Throw | None:
        index = bisect.bisect_left(self.range_ends, invocation)
        return self.outcomes[index] if index < len(self.outcomes) else None

    def coverage(self) -> str:
        """Which invocations the keys cover, said for an error message."""
        if not self.range_ends:
            return "it has no keys"
        last = self.range_ends[-1]
        return "its keys cover invocation 0" if last == 0 else f"its keys cover invocations 0-{last}"


class MockDocument(Struct, frozen=True):
    """A validated mock configuration: machine -> test case -> state -> mocked response name."""

    state_machines: Mapping[str, Mapping[str, Mapping[str, str]]]
    responses: Mapping[str, MockedResponse]


# -- reading and validating -----------------------------------------------------------------------

class _JsonObject(dict):
    """A JSON/YAML object that remembers the keys it saw more than once (the last value wins)."""

    duplicates: tuple[str, ...] = ()


def _object_from_pairs(pairs: list[tuple[Any, Any]]) -> _JsonObject:
    result = _JsonObject()
    seen_twice: list[str] = []
    for key, value in pairs:
        if key in result and key not in seen_twice:
            seen_twice.append(key)
        result[key] = value
    result.duplicates = tuple(seen_twice)
    return result


@cache
def _yaml_loader() -> type[yaml.SafeLoader]:
    """YAML read as JSON-shaped data (timestamps stay strings) whose repeated keys are reported;
    built on the first YAML mock file, so that PyYAML loads only then."""
    import yaml

    class YamlLoader(json_shaped_yaml_loader()):  # type: ignore[misc,valid-type]
        """Its own class: the constructor added below must not reach the definition files' loader."""

    YamlLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_yaml_object)
    return YamlLoader


def _construct_yaml_object(loader: yaml.SafeLoader, node: yaml.MappingNode) -> _JsonObject:
    import yaml

    loader.flatten_mapping(node)
    pairs = loader.construct_pairs(node, deep=True)
    for (key, _), (key_node, _) in zip(pairs, node.value):
        if not isinstance(key, (str, int, float, bool, type(None))):
            raise yaml.constructor.ConstructorError(None, None, "found a key that is a list or a mapping",
                                                    key_node.start_mark)
    return _object_from_pairs(pairs)


def read_mock_config(path: str | Path, shown_as: str | None = None) -> MockDocument:
    """Read and validate a mock configuration file; raises `MockConfigError` saying what is wrong,
    naming the file as `shown_as` (default: its path; a file written from the user's dict is not theirs)."""
    path = Path(path)
    source = shown_as or str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise MockConfigError(source, [f"cannot read the file: {exc}"]) from None
    if is_yaml_file(path):
        import yaml

        try:
            data = yaml.load(text, Loader=_yaml_loader())  # noqa: S506 - a SafeLoader subclass
        except yaml.YAMLError as exc:
            raise MockConfigError(source, [f"not valid YAML: {_yaml_problem(exc)}"]) from None
    else:
        try:
            data = json.loads(text, object_pairs_hook=_object_from_pairs)
        except ValueError as exc:
            raise MockConfigError(source, [f"not valid JSON: {exc}"]) from None
    return parse_mock_config(data, source)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """PyYAML's complaint without its excerpt of the text: where, then what."""
    import yaml

    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return " ".join(str(exc).split())
    mark = exc.problem_mark
    what = ", ".join(part for part in (exc.context, exc.problem) if part)
    return f"line {mark.line + 1}, column {mark.column + 1}: {what}"


def parse_mock_config(data: Any, source: str) -> MockDocument:
    """Validate a mock configuration already read as JSON data; raises `MockConfigError` listing every problem."""
    checker = _Checker()
    document = checker.document(data)
    if checker.problems:
        raise MockConfigError(source, checker.problems)
    return document


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__


def dotted_location(*segments: str) -> str:
    """A dotted location such as ``StateMachines.Orders.TestCases``; odd names are quoted."""
    text = ""
    for segment in segments:
        if _PLAIN_SEGMENT.match(segment):
            text += f".{segment}" if text else segment
        else:
            text += f"[{json.dumps(segment)}]"
    return text


class _Checker:
    """Walks the raw data, collecting a problem for everything wrong, and builds the document."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def document(self, data: Any) -> MockDocument:
        if not isinstance(data, dict):
            self.problems.append(f"the top level must be an object with StateMachines and MockedResponses, "
                                 f"not {_json_type(data)}")
            return MockDocument({}, {})
        self._object_keys(data, (), _TOP_LEVEL_FIELDS)
        raw_responses = data.get("MockedResponses", {})
        defined = frozenset(raw_responses) if isinstance(raw_responses, dict) else frozenset()
        machines = self._state_machines(data.get("StateMachines", {}), defined)
        return MockDocument(machines, self._responses(raw_responses))

    def _object_keys(self, value: dict, where: tuple[str, ...], allowed: tuple[str, ...] | None) -> list[str]:
        """Report repeated, non-string and (when `allowed` is given) unknown keys; return the usable keys."""
        place = dotted_location(*where) if where else "the top level"
        for key in getattr(value, "duplicates", ()):
            self.problems.append(f"{place} has the key '{key}' twice")
        usable = []
        for key in value:
            if not isinstance(key, str):
                self.problems.append(f"{place} has the key {key!r}, which is not a string")
            elif allowed is not None and key not in allowed:
                self.problems.append(f"{place} has an unknown field '{key}' (expected {' or '.join(allowed)})")
            else:
                usable.append(key)
        return usable

    # -- StateMachines ------------------------------------------------------------------------
    def _state_machines(self, value: Any, defined: frozenset[str]) -> dict[str, dict[str, dict[str, str]]]:
        if not isinstance(value, dict):
            self.problems.append(f"StateMachines must be an object of state machine name -> "
                                 f"{{\"TestCases\": ...}}, not {_json_type(value)}")
            return {}
        machines: dict[str, dict[str, dict[str, str]]] = {}
        for machine in self._object_keys(value, ("StateMachines",), None):
            entry = value[machine]
            where = ("StateMachines", machine)
            if not isinstance(entry, dict):
                self.problems.append(f"{dotted_location(*where)} must be an object with a TestCases field, not {_json_type(entry)}")
                continue
            self._object_keys(entry, where, ("TestCases",))
            machines[machine] = self._test_cases(entry.get("TestCases"), (*where, "TestCases"), defined)
        return machines

    def _test_cases(self, value: Any, where: tuple[str, ...], defined: frozenset[str]) -> dict[str, dict[str, str]]:
        if not isinstance(value, dict):
            found = "is missing" if value is None else f"is {_json_type(value)}"
            self.problems.append(f"{dotted_location(*where)} must be an object of test case name -> "
                                 f"{{state name: mocked response name}}, but it {found}")
            return {}
        cases: dict[str, dict[str, str]] = {}
        for case in self._object_keys(value, where, None):
            states = value[case]
            case_where = (*where, case)
            if not isinstance(states, dict):
                self.problems.append(f"{dotted_location(*case_where)} must be an object of state name -> "
                                     f"mocked response name, not {_json_type(states)}")
                continue
            cases[case] = {}
            for state in self._object_keys(states, case_where, None):
                response = states[state]
                if not isinstance(response, str):
                    self.problems.append(f"{dotted_location(*case_where, state)} must name a mocked response (a string), "
                                         f"not {_json_type(response)}")
                elif response not in defined:
                    self.problems.append(f"{dotted_location(*case_where, state)} names the response '{response}', "
                                         "which MockedResponses does not define")
                else:
                    cases[case][state] = response
        return cases

    # -- MockedResponses ----------------------------------------------------------------------
    def _responses(self, value: Any) -> dict[str, MockedResponse]:
        if not isinstance(value, dict):
            self.problems.append(f"MockedResponses must be an object of response name -> "
                                 f"{{invocation: response}}, not {_json_type(value)}")
            return {}
        return {name: self._response(name, value[name]) for name in self._object_keys(value, ("MockedResponses",), None)}

    def _response(self, name: str, value: Any) -> MockedResponse:
        where = ("MockedResponses", name)
        if not isinstance(value, dict):
            self.problems.append(f"{dotted_location(*where)} must be an object of invocation number or range "
                                 f"(\"0\", \"1-2\") -> {{\"Return\": ...}} or {{\"Throw\": ...}}, not {_json_type(value)}")
            return MockedResponse(name, (), ())
        for key in getattr(value, "duplicates", ()):
            self.problems.append(f"{dotted_location(*where)} has the key '{key}' twice")
        ranges: list[tuple[int, int, str, Return | Throw]] = []
        for raw_key, entry in value.items():
            key = str(raw_key) if isinstance(raw_key, int) and not isinstance(raw_key, bool) else raw_key  # YAML's 0:
            bounds = self._invocation_range(key, where)
            outcome = self._outcome(entry, (*where, str(key)))
            if bounds is not None and outcome is not None:
                ranges.append((*bounds, key, outcome))
        ranges.sort(key=lambda item: item[:2])
        expected_next, furthest_key = 0, ""
        for start, end, key, _ in ranges:
            if start < expected_next:
                self.problems.append(f"{dotted_location(*where)}: the keys '{furthest_key}' and '{key}' both cover invocation {start}")
            elif start > expected_next:
                missing = (f"invocation {expected_next}" if start - 1 == expected_next
                           else f"invocations {expected_next}-{start - 1}")
                self.problems.append(f"{dotted_location(*where)} has no response for {missing}: "
                                     "the keys must number invocations 0, 1, 2, ... without gaps")
            if end + 1 > expected_next:
                expected_next, furthest_key = end + 1, key
        return MockedResponse(name, tuple(end for _, end, _, _ in ranges), tuple(outcome for *_, outcome in ranges))

    def _invocation_range(self, key: Any, where: tuple[str, ...]) -> tuple[int, int] | None:
        match = _INVOCATION_KEY.match(key) if isinstance(key, str) else None
        if match is None:
            self.problems.append(f"{dotted_location(*where)} has the key {json.dumps(key) if isinstance(key, str) else repr(key)}, "
                                 "which is neither an invocation number (\"0\") nor an inclusive range (\"1-2\")")
            return None
        start = int(match[1])
        end = int(match[2]) if match[2] is not None else start
        if end < start:
            self.problems.append(f"{dotted_location(*where)} has the range '{key}', whose start is greater than its end")
            return None
        return start, end

    def _outcome(self, entry: Any, where: tuple[str, ...]) -> Return | Throw | None:
        if not isinstance(entry, dict):
            self.problems.append(f"{dotted_location(*where)} must be an object with Return or Throw, not {_json_type(entry)}")
            return None
        fields = self._object_keys(entry, where, ("Return", "Throw"))
        if "Return" in fields and "Throw" in fields:
            self.problems.append(f"{dotted_location(*where)} has both Return and Throw; a response either returns or throws")
            return None
        if "Return" in fields:
            return Return(entry["Return"])
        if "Throw" in fields:
            return self._throw(entry["Throw"], (*where, "Throw"))
        if len(fields) == len(entry):
            self.problems.append(f"{dotted_location(*where)} has neither Return nor Throw")
        return None

    def _throw(self, value: Any, where: tuple[str, ...]) -> Throw | None:
        if not isinstance(value, dict):
            self.problems.append(f"{dotted_location(*where)} must be an object with an Error string and a Cause string, "
                                 f"not {_json_type(value)}")
            return None
        self._object_keys(value, where, ("Error", "Cause"))
        error, cause = value.get("Error"), value.get("Cause")
        valid = True
        if not isinstance(error, str):
            found = "it is missing" if "Error" not in value else f"not {_json_type(error)}"
            self.problems.append(f"{dotted_location(*where, 'Error')} must be a string, {found}")
            valid = False
        if cause is not None and not isinstance(cause, str):
            self.problems.append(f"{dotted_location(*where, 'Cause')} must be a string, not {_json_type(cause)}")
            valid = False
        return Throw(error, cause) if valid else None
