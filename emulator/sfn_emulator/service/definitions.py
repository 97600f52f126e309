"""Definitions as the API sees them: parsing with AWS's InvalidDefinition, ValidateStateMachineDefinition,
and TestState (one state run once by the engine)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from msgspec import Struct

from sfn_emulator import dialects
from sfn_emulator.asl.validation import InvalidDefinitionError
from sfn_emulator.service import arns
from sfn_emulator.service.errors import InvalidDefinition, ValidationException
from sfn_emulator.service.json_input import read_execution_input
from sfn_emulator.service.locking import unlocked_operation
from sfn_emulator.service.registry import Registry
from sfn_emulator.service.store import Store

if TYPE_CHECKING:
    from sfn_emulator.engine import Engine

DEFAULT_DIAGNOSTICS = 100  # AWS's default (and maximum) maxResults for ValidateStateMachineDefinition


def parse_or_raise(definition: str, state_machine_type: str, dialect: str | None = None) -> Any:
    """Parse a definition in its dialect (`dialect`: the `sfn-emulator:dialect` tag's value, else
    recognised by shape); a bad one is refused with AWS's InvalidDefinition message."""
    try:
        return dialects.parse(definition, state_machine_type=state_machine_type, dialect=dialect)
    except InvalidDefinitionError as error:
        raise InvalidDefinition(error.message) from None


class CompiledDefinition(Struct, frozen=True):
    """A definition compiled before the service lock is taken: its model, or the refusal to raise
    where the operation would have parsed it (so refusals keep their order)."""

    text: str
    state_machine_type: str
    dialect: str | None
    model: Any = None
    refusal: InvalidDefinition | None = None

    def model_for(self, text: str, state_machine_type: str, dialect: str | None) -> Any:
        """The model of `text` (compiled again, under the lock, if the request's reading changed)."""
        if (text, state_machine_type, dialect) != (self.text, self.state_machine_type, self.dialect):
            return parse_or_raise(text, state_machine_type, dialect)
        if self.refusal is not None:
            raise self.refusal
        return self.model


def compile_definition(text: str, state_machine_type: str, dialect: str | None) -> CompiledDefinition:
    """`parse_or_raise`, its refusal kept rather than raised."""
    try:
        return CompiledDefinition(text, state_machine_type, dialect, model=parse_or_raise(text, state_machine_type, dialect))
    except InvalidDefinition as refusal:
        return CompiledDefinition(text, state_machine_type, dialect, refusal=refusal)


def model_of(compiled: CompiledDefinition | None, text: str, state_machine_type: str, dialect: str | None) -> Any:
    """The model of a definition an operation was handed compiled (or, when it was not, parsed now)."""
    if compiled is None:
        return parse_or_raise(text, state_machine_type, dialect)
    return compiled.model_for(text, state_machine_type, dialect)


class Definitions:
    """ValidateStateMachineDefinition, and TestState, which runs one state on the engine."""

    def __init__(self, registry: Registry, engine: Engine) -> None:
        self.registry = registry
        self._engine = engine  # TestState's run needs the engine whole: its clock, ids, tasks and fibers

    @unlocked_operation
    def validate_state_machine_definition(
        self,
        store: Store,
        *,
        definition: str,
        type: str | None = None,
        severity: str | None = None,
        maxResults: int | None = None,
    ) -> dict[str, Any]:
        limit = maxResults or DEFAULT_DIAGNOSTICS
        # Ask for one more than the limit, to know whether the list is truncated.
        diagnostics = dialects.validate(
            definition, state_machine_type=type or "STANDARD", severity=severity or "ERROR", max_results=limit + 1
        )
        shown = [diagnostic.to_api() for diagnostic in diagnostics[:limit]]
        failed = any(diagnostic.to_api().get("severity") == "ERROR" for diagnostic in diagnostics)
        return {"result": "FAIL" if failed else "OK", "diagnostics": shown, "truncated": len(diagnostics) > limit}

    @unlocked_operation
    def test_state(
        self,
        store: Store,
        *,
        definition: str,
        roleArn: str | None = None,
        input: str | None = None,
        inspectionLevel: str | None = None,
        revealSecrets: bool | None = None,
        variables: str | None = None,
        stateName: str | None = None,
        mock: dict[str, Any] | None = None,
        context: str | None = None,
        stateConfiguration: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Run one state once (no execution is recorded). `revealSecrets` shows, at the TRACE level, what
        an HTTP Task's connection added to its request. `variables` are the workflow variables in scope."""
        # Imported on first use: most runs never call TestState.
        from sfn_emulator.engine.single_state import TestStateRefused
        from sfn_emulator.engine.single_state import run_single_state
        from sfn_emulator.service.single_state_requests import (
            check_mock,
            read_configuration,
            read_context,
            read_variables,
            state_to_test,
        )

        if roleArn is not None:
            arns.role(roleArn)
        input_text = "{}" if input is None else input
        input_value = read_execution_input(input_text)
        state = state_to_test(definition, stateName)
        check_mock(state, mock, bool(revealSecrets), role_arn=roleArn, configuration=stateConfiguration)
        supplied_context = read_context(context, state, mock)
        configuration = read_configuration(stateConfiguration, state)
        variables_in_scope = read_variables(variables)
        try:
            return run_single_state(
                self._engine, state, input_text, input_value,
                role_arn=roleArn or "", account=store.account, region=store.region,
                inspection_level=inspectionLevel or "INFO", mock=mock, context=supplied_context,
                configuration=configuration, variables=variables_in_scope, reveal_secrets=bool(revealSecrets),
            )
        except TestStateRefused as refused:
            raise ValidationException(refused.message) from None
