"""Reading the fields the table describes (`field_table`): one reader for every field with a literal rule.

For each such field of an owner, in the table's order: at most one of the field and its `…Path` twin;
in a JSONata state a `{% %}` expression of the field's result type; else the literal, checked by its
rule; the twin's path compiled (each step a pass over the owner's fields). A field with other forms
than the literal becomes one compiled field (`asl.fields.one_field`); a plain field is its checked value."""

from __future__ import annotations

from typing import Any, Callable

from sfn_emulator.asl.fields import Converted, one_field
from sfn_emulator.asl.parsing.expressions import ExpressionFields
from sfn_emulator.asl.parsing.field_table import FieldSpec, FieldTable
from sfn_emulator.asl.parsing.recording import DiagnosticRecorder
from sfn_emulator.asl.paths import compile_reference_path


class TableFields:
    """Reads an owner's table-described fields into the model's attributes."""

    def __init__(self, table: FieldTable, recorder: DiagnosticRecorder, expressions: ExpressionFields) -> None:
        self.table = table
        self.recorder = recorder
        self.expressions = expressions

    def refuse_unknown(self, owner: str, value: dict, location: str) -> None:
        """Report each field of `value` that `owner` does not take in the query language in force."""
        self.recorder.unknown_fields(value, self.table.fields_of(owner, self.recorder.language), location)

    def read(self, owner: str, value: dict, location: str,
             check_literals: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
        """{model attribute: value} of the fields of `owner` that `value` gives (none for an absent or
        refused field, so the model's default stands).

        Read in passes over the owner's fields given, as the parser has always reported them: the
        pairs of a field and its twin given together, the `{% %}` expressions, the literals, then the
        twins' paths. `check_literals` gets the checked literals {attribute: value} before the paths,
        for a check across fields (HeartbeatSeconds < TimeoutSeconds)."""
        given = [spec for spec in self.table.read_by_table(owner)
                 if spec.name in value or (spec.twin is not None and spec.twin in value)]
        for spec in given:
            if spec.twin is not None and spec.twin_exclusive:
                self.recorder.at_most_one(value, owner, (spec.name, spec.twin), location)
        expressions = {spec.name: self.expressions.jsonata_field(value, spec.name, location, spec.expression)
                       for spec in given if spec.expression is not None}
        literals = {spec.attribute: self.literal(spec, value, location)
                    for spec in given if expressions.get(spec.name) is None}
        if check_literals is not None:
            check_literals({attribute: item for attribute, item in literals.items() if item is not None})
        read: dict[str, Any] = {}
        for spec in given:
            literal, expression = literals.get(spec.attribute), expressions.get(spec.name)
            if spec.twin is None and spec.expression is None:
                item = literal
            else:
                if expression is not None and spec.expression_convert is not None:
                    expression = Converted(expression, spec.expression_convert)
                item = one_field(literal, self.twin_path(spec, value, location), expression, spec.path)
            if item is not None:
                read[spec.attribute] = item
        return read

    def twin_path(self, spec: FieldSpec, value: dict, location: str) -> Any:
        """The compiled path of the field's `…Path` twin, if it has one and it is given."""
        if spec.twin is None:
            return None
        if spec.path_takes_intrinsic:
            return self.expressions.path_or_intrinsic(value, spec.twin, location)
        return self.expressions.path(value, spec.twin, location, compile_reference_path, nullable=False)

    def literal(self, spec: FieldSpec, value: dict, location: str) -> Any:
        """The field's literal value if it keeps its rule, else None (with AWS's text when present)."""
        rule = spec.literal
        assert rule is not None  # the table's reader reads only the fields with a literal rule
        if rule.choices:
            return self.recorder.enum(value, spec.name, rule.choices, location)
        item = self.recorder.typed(value, spec.name, rule.json_type, location)
        if item is None:
            return None
        if not self.recorder.in_range(item, spec.name, location, rule.minimum, rule.maximum):
            return None
        if rule.problem is not None and (problem := rule.problem(item)) is not None:
            self.recorder.first_error(problem, f"{location}/{spec.name}")
            return None
        return rule.convert(item) if rule.convert is not None else item
