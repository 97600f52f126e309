"""Reading the fields the table describes (`field_table`): one reader for every field with a literal rule.

For each such field of an owner, in the table's order: at most one of the field and its `…Path` twin;
in a JSONata state a `{% %}` expression of the field's result type; else the literal, checked by its
rule; the twin's path compiled. A field with other forms than the literal becomes one compiled field
(`asl.fields.one_field`); a plain field is its checked value."""

from __future__ import annotations

from typing import Any

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

    def read(self, owner: str, value: dict, location: str, literals: dict[str, Any] | None = None) -> dict[str, Any]:
        """{model attribute: value} of the fields of `owner` that `value` gives (none for an absent or
        refused field, so the model's default stands). `literals`, when given, receives the checked
        literal of each field written as one, for checks across fields (HeartbeatSeconds < TimeoutSeconds)."""
        read: dict[str, Any] = {}
        for spec in self.table.read_by_table(owner):
            literal, item = self.read_field(owner, spec, value, location)
            if literals is not None and literal is not None:
                literals[spec.attribute] = literal
            if item is not None:
                read[spec.attribute] = item
        return read

    def read_field(self, owner: str, spec: FieldSpec, value: dict, location: str) -> tuple[Any, Any]:
        """(the checked literal or None, the field's value in the model or None)."""
        twin = spec.twin
        if spec.name not in value and (twin is None or twin not in value):
            return None, None  # absent: nothing to check, the model's default stands
        if twin is None and spec.expression is None:
            literal = self.literal(spec, value, location)
            return literal, literal
        if twin is not None and spec.twin_exclusive:
            self.recorder.at_most_one(value, owner, (spec.name, twin), location)
        expression = None
        if spec.expression is not None:
            expression = self.expressions.jsonata_field(value, spec.name, location, spec.expression)
        literal = self.literal(spec, value, location) if expression is None else None
        path = None
        if twin is not None and spec.path_takes_intrinsic:
            path = self.expressions.path_or_intrinsic(value, twin, location)
        elif twin is not None:
            path = self.expressions.path(value, twin, location, compile_reference_path, nullable=False)
        if expression is not None and spec.expression_convert is not None:
            expression = Converted(expression, spec.expression_convert)
        return literal, one_field(literal, path, expression, spec.path)

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
