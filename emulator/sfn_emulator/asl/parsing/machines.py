"""The parser of a whole definition, a Parallel branch or a Map item processor: one pass that builds
the model and records every diagnostic on the way."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from sfn_emulator.asl.model import JSONATA, JSONPATH, State, StateMachine
from sfn_emulator.asl.parsing.rules import (
    ABSENT,
    BRANCH_FIELDS,
    EMPTY,
    EXPRESS,
    ITEM_PROCESSOR_FIELDS,
    MAX_SECONDS,
    QUERY_LANGUAGES,
    TOP_LEVEL_FIELDS,
    listed,
    expected_type,
)
from sfn_emulator.asl.parsing.states import StateFields
from sfn_emulator.asl.state_names import state_name_problem
from sfn_emulator.asl.validation import (
    DUPLICATE_STATE_NAME,
    Diagnostic,
    Scope,
    check_transitions,
    duplicate_keys,
)


class Parser(StateFields):
    """One pass over a definition: builds the model and records every diagnostic on the way.

    Each `state`/`machine` method returns None when it found an error in its part (the
    diagnostics say why); the caller keeps going so that every problem gets reported.
    """

    def __init__(self, state_machine_type: str) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.express = state_machine_type == EXPRESS
        self.state_names: set[str] = set()  # of the whole machine, branches and item processors included
        self.machine_language = JSONPATH  # what states, nested ones included, inherit
        self.language = JSONPATH  # of the state being built

    # -- machines -------------------------------------------------------------------------------

    def machine(self, value: Any, location: str, *, kind: str, query_language: str) -> StateMachine | None:
        """A whole definition (`kind` "top"), a Parallel branch ("branch") or a Map item processor ("processor")."""
        errors_before = self.error_count()
        here = location or "/"
        if not isinstance(value, dict):
            self.error(expected_type("OBJECT"), here)
            return None
        allowed = {"top": TOP_LEVEL_FIELDS, "branch": BRANCH_FIELDS, "processor": ITEM_PROCESSOR_FIELDS}[kind]
        missing = [name for name in ("States", "StartAt") if name not in value]
        if missing:
            self.error(f"These fields are required: {listed(missing)}", here)
        self.unknown_fields(value, allowed, here)

        start_at = self.typed(value, "StartAt", "STRING", location)
        comment = self.typed(value, "Comment", "STRING", location)
        timeout_seconds = version = None
        if kind == "top":
            query_language = self.query_language(value, location, inherited=None) or JSONPATH
            self.machine_language = query_language
            timeout_seconds = self.integer(value, "TimeoutSeconds", location, minimum=0, maximum=MAX_SECONDS)
            version = self.typed(value, "Version", "STRING", location)

        states = self.typed(value, "States", "OBJECT", location)
        scope = Scope(location, start_at if isinstance(start_at, str) else None)
        parsed: dict[str, State] = {}
        if isinstance(states, dict):
            if not states:
                self.error(EMPTY, f"{location}/States")
            for name in duplicate_keys(states):
                self.error(f"Duplicate State name: {name}", f"{location}/States/{name}", DUPLICATE_STATE_NAME)
            for name, definition in states.items():
                state_location = f"{location}/States/{name}"
                self.register_name(name, state_location)
                scope.states.append(name)
                state = self.state(name, definition, state_location, scope, query_language)
                if state is not None:
                    parsed[name] = state
            self.diagnostics.extend(check_transitions(scope, top_level=kind == "top"))

        if self.error_count() > errors_before or not isinstance(start_at, str):
            return None
        return StateMachine(
            start_at=start_at,
            states=MappingProxyType(parsed),  # read-only: the model is immutable all the way down
            query_language=query_language,
            timeout_seconds=timeout_seconds,
            comment=comment,
            version=version,
            raw=value,
        )

    def register_name(self, name: str, location: str) -> None:
        """State names are unique in the whole machine, branches and item processors included."""
        if (problem := state_name_problem(name, location)) is not None:
            self.diagnostics.append(problem)
        if name in self.state_names:
            self.error(f"Duplicate State name: {name}", location, DUPLICATE_STATE_NAME)
        self.state_names.add(name)

    def query_language(self, value: dict, location: str, *, inherited: str | None) -> str | None:
        """The declared QueryLanguage (checked), or `inherited` when there is none."""
        declared = value.get("QueryLanguage", ABSENT)
        if declared is ABSENT:
            return inherited
        here = f"{location}/QueryLanguage"
        if not isinstance(declared, str):
            self.error(expected_type("STRING"), here)
            return inherited
        if declared not in QUERY_LANGUAGES:
            self.error(f"Value should be one of the following: {listed(QUERY_LANGUAGES)}", here)
            return inherited
        if declared == JSONPATH and inherited == JSONATA:
            self.error("'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine", location)
        return declared
