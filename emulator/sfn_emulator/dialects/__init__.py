"""Dialects: the definition languages the emulator runs on one engine.

A `Dialect` is a front end: it recognises its documents by shape, parses a definition text into an
immutable compiled model (every problem collected into `InvalidDefinitionError` diagnostics, as for
ASL), validates in ValidateStateMachineDefinition's form, runs a model as a generator of the
engine's effects (writing history through the execution's `Run`/`Frame`, as
`engine.interpreter.run_execution` does) and draws a model's `graphs.structure.Graph`.

Which dialect a definition is in:
1. the tag `sfn-emulator:dialect` on CreateStateMachine (`asl`, `serverless-workflow`,
   `serverless-workflow-0.x`, `serverless-workflow-1.0`, `sm4c`), when given;
2. otherwise the first registered dialect (other than ASL) whose `recognises` accepts the document
   (JSON or YAML text); each dialect states its rule in its own docstring;
3. otherwise ASL, so that whatever is not another dialect's gets ASL's own diagnostics.
An ASL definition (a JSON object with `States`) is never recognised by another dialect.

ASL is the core's own dialect. Every other one is an extension the registry finds and never
imports: an installed distribution names it in the entry point group `sfn_emulator.dialects`
(`name = "package.module:DIALECT_OBJECT"`; the emulator's own Serverless Workflow versions and SM4C
are found so, from its pyproject.toml), or code registers one with `register(dialect)`. Which
dialect recognises a document must not depend on that order: recognitions do not overlap.

A definition text is read once: the document recognition reads (JSON as ASL reads it, else YAML)
is handed to a dialect that has `parse_document(text, document, *, state_machine_type)` /
`validate_document(text, document, *, state_machine_type, severity, max_results)`; a dialect
without them reads the text itself.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol

from msgspec import UNSET, Struct

from sfn_emulator.asl.validation import (
    ERROR,
    SCHEMA_VALIDATION_FAILED,
    Diagnostic,
    InvalidDefinitionError,
    decode_definition,
)
from sfn_emulator.protocol.definition_files import OverexpandedYaml
from sfn_emulator.dialects.asl import ASL_DIALECT
from sfn_emulator.dialects.documents import load_document, read_document  # load_document: for dialects of plugins
from sfn_emulator.engine.effects import Interpreter
from sfn_emulator.engine.execution import Execution
from sfn_emulator.engine.frame import Run

if TYPE_CHECKING:  # graphs are drawn on request only: not imported for a run
    from sfn_emulator.graphs.structure import Graph

DIALECT_TAG = "sfn-emulator:dialect"
ASL = "asl"


class Dialect(Protocol):
    """One definition language (see the module docstring). A dialect whose documents name files
    relative to themselves may also have `anchor(text, directory) -> text` (see `anchored`)."""

    name: str  # the value of the `sfn-emulator:dialect` tag that chooses it
    model: type  # the class of its compiled models: an execution's model says which dialect runs it

    def recognises(self, document: Any) -> bool:
        """Is this parsed JSON/YAML document one of this dialect's?"""

    def parse(self, text: str, *, state_machine_type: str) -> Any:
        """The compiled model of `text`, or InvalidDefinitionError with every problem."""

    def validate(self, text: str, *, state_machine_type: str, severity: str, max_results: int) -> list[Diagnostic]:
        """ValidateStateMachineDefinition's diagnostics for `text`."""

    def run(self, run: Run) -> Interpreter:
        """Run the execution `run.execution` (its `machine` is this dialect's model) from its input;
        returns the execution's output."""

    def graph(self, definition: str) -> Graph:
        """The graph of a definition text; ValueError when it is not this dialect's document."""

    def mock_view(self, model: Any) -> Mapping[str, Any]:
        """What a mock configuration may name in this model, as an ASL-shaped definition (its Task
        states under `States`): CreateStateMachine's check that a test case mocks only those."""


_DIALECTS: dict[str, Dialect] = {ASL: ASL_DIALECT}
ENTRY_POINT_GROUP = "sfn_emulator.dialects"  # where installed distributions name their dialects
_discovered = False  # whether the installed dialects are registered (see `_discover`)
_discovery_lock = threading.Lock()


def register(dialect: Dialect) -> Dialect:
    """Make `dialect` available (by its name, and to recognition after the installed ones and those
    registered before it); it replaces an installed dialect of the same name."""
    _discover()
    _DIALECTS[dialect.name] = dialect
    return dialect


def unregister(name: str) -> None:
    """Forget the dialect `name` (ASL stays)."""
    if name != ASL:
        _DIALECTS.pop(name, None)


def names() -> tuple[str, ...]:
    _discover()
    return tuple(_DIALECTS)


def dialect_named(name: str) -> Dialect:
    """The dialect `name`; InvalidDefinitionError naming the known ones otherwise."""
    if name != ASL:
        _discover()
    dialect = _DIALECTS.get(name)
    if dialect is None:
        known = ", ".join(f"'{known}'" for known in _DIALECTS)
        raise InvalidDefinitionError([Diagnostic(
            ERROR, SCHEMA_VALIDATION_FAILED, f"Unknown dialect '{name}' in the tag '{DIALECT_TAG}'; known: {known}")])
    return dialect


class _Chosen(Struct, frozen=True):
    """A definition's dialect, and the text's value as read to choose it, which the dialect compiles
    (UNSET: not read; for ASL, also when the text is not JSON)."""

    dialect: Dialect
    document: Any = UNSET


def _choose(text: str, name: str | None) -> _Chosen:
    if name is not None:
        return _Chosen(dialect_named(name))
    asl = _DIALECTS[ASL]
    json_document, problem = decode_definition(text)  # as ASL reads it: ASL takes this document on
    if problem is None:
        document = json_document
    else:
        json_document = UNSET
        try:
            document = read_document(text)
        except OverexpandedYaml:
            raise
        except ValueError:
            document = None
    if document is None or asl.recognises(document):
        return _Chosen(asl, json_document)
    _discover()
    chosen = next((dialect for dialect in _DIALECTS.values() if dialect is not asl and dialect.recognises(document)), asl)
    return _Chosen(chosen, document if chosen is not asl else json_document)


def dialect_of(text: str, name: str | None = None) -> Dialect:
    """The dialect of a definition text: the one named, else the one recognising it, else ASL."""
    return _choose(text, name).dialect


def anchored(text: str, directory: Path) -> str:
    """A definition read from a file in `directory`, with what its dialect reads relative to that
    file made absolute (a dialect's optional `anchor(text, directory)`; SM4C's definitions by URI):
    once read, the text no longer knows where its file was."""
    anchor = getattr(dialect_of(text), "anchor", None)
    return anchor(text, directory) if anchor is not None else text


def read_anchored(source: str) -> str:
    """The definition named on a command line (a file, or `-` for standard input: see
    `definition_files.read_definition`), anchored to its file's directory (see `anchored`)."""
    from sfn_emulator.protocol.definition_files import STDIN, read_definition

    text = read_definition(source)
    return text if source == STDIN else anchored(text, Path(source).resolve().parent)


def parse(text: str, *, state_machine_type: str = "STANDARD", dialect: str | None = None) -> Any:
    """The compiled model of a definition in its dialect, or InvalidDefinitionError."""
    try:
        chosen = _choose(text, dialect)
    except OverexpandedYaml as error:
        raise InvalidDefinitionError([_overexpanded(error)]) from None
    parse_document = getattr(chosen.dialect, "parse_document", None)
    if parse_document is not None and chosen.document is not UNSET:
        return parse_document(text, chosen.document, state_machine_type=state_machine_type)
    return chosen.dialect.parse(text, state_machine_type=state_machine_type)


def validate(text: str, *, state_machine_type: str = "STANDARD", severity: str = ERROR, max_results: int = 100,
             dialect: str | None = None) -> list[Diagnostic]:
    """ValidateStateMachineDefinition's diagnostics for a definition in its dialect."""
    try:
        chosen = _choose(text, dialect)
    except OverexpandedYaml as error:
        return [_overexpanded(error)]
    validate_document = getattr(chosen.dialect, "validate_document", None)
    if validate_document is not None and chosen.document is not UNSET:
        return validate_document(text, chosen.document, state_machine_type=state_machine_type,
                                 severity=severity, max_results=max_results)
    return chosen.dialect.validate(text, state_machine_type=state_machine_type, severity=severity,
                                   max_results=max_results)


def _overexpanded(error: OverexpandedYaml) -> Diagnostic:
    return Diagnostic(ERROR, SCHEMA_VALIDATION_FAILED, f"Invalid YAML: {error}")


def graph_of(definition: str) -> Graph:
    """The graph of a definition text in its dialect; ValueError when it cannot be drawn."""
    return dialect_of(definition).graph(definition)


def mock_view(model: Any) -> Mapping[str, Any]:
    """The model's mockable names as an ASL-shaped definition (see `Dialect.mock_view`)."""
    return _dialect_of_model(model).mock_view(model)


def interpreter_for(execution: Execution) -> Callable[[Run], Interpreter]:
    """The interpreter of the dialect whose model the execution runs (the engine's `interpreter_for`)."""
    return _dialect_of_model(execution.machine).run


def _dialect_of_model(model: Any) -> Dialect:
    """The dialect whose model class is the nearest in the model's class hierarchy (a later version's
    model may extend an earlier one's)."""
    asl = _DIALECTS[ASL]
    if isinstance(model, asl.model):
        return asl
    _discover()
    by_model = {dialect.model: dialect for dialect in _DIALECTS.values() if dialect is not asl}
    return next((by_model[kind] for kind in type(model).__mro__ if kind in by_model), asl)


def _discover() -> None:
    """Register the dialects of the installed distributions (entry point group `sfn_emulator.dialects`,
    each naming a `Dialect` object), once per process, in the order of their entry point names.
    Done when a definition first needs a dialect other than ASL (or one is registered by hand): a
    plain ASL run never reads the installed packages' metadata."""
    global _discovered
    if _discovered:
        return
    with _discovery_lock:
        if _discovered:
            return
        from importlib.metadata import entry_points

        found = {point.name: point for point in entry_points(group=ENTRY_POINT_GROUP)}
        for name in sorted(found):
            dialect = found[name].load()
            _DIALECTS.setdefault(dialect.name, dialect)
        _discovered = True
