"""The evaluation tree a parsed call becomes: the call itself, its path arguments, a Format template."""

from __future__ import annotations


from msgspec import Struct

from sfn_emulator.asl.errors import RUNTIME, StatesError
from sfn_emulator.asl.intrinsics.arguments import Function
from sfn_emulator.asl.intrinsics.errors import CallFailed, InvalidArguments
from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.model import JSON, Expression, ExpressionScope
from sfn_emulator.asl.paths import JsonPath, PathNotFound


class Intrinsic(Struct, frozen=True):
    """A compiled intrinsic call; `text` is the expression exactly as written in the definition."""

    text: str
    call: Call

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        """Evaluate against the effective input `value`; raises `StatesError` on failure."""
        try:
            return self.call.evaluate(value, scope)
        except CallFailed as failure:
            raise StatesError(
                RUNTIME, f"The function '{self.text}' had the following error: {failure.reason}"
            ) from None


class FormatTemplate(Struct, frozen=True):
    """The literal first argument of States.Format, split at its `{}` placeholders.

    Only a literal can escape braces (`\\{`), so it is split at parse time; `pieces` is None when
    a brace is unmatched, which AWS reports when the state runs, not with the definition."""

    pieces: tuple[str, ...] | None

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        return self


class PathArgument(Struct, frozen=True):
    text: str
    path: JsonPath

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        try:
            return self.path.evaluate(value, scope)
        except PathNotFound:
            # AWS names a Context Object path by its part after the first `$`, and shows the
            # state input (not the Context Object) as "the input".
            reported = self.text[1:] if self.text.startswith("$$") else self.text
            raise CallFailed(
                f"The JsonPath argument for the field '{reported}' could not be found in the "
                f"input '{compact_json(value)}'"
            ) from None


class Call(Struct, frozen=True):
    function: Function
    arguments: tuple[Expression, ...]

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        args = [argument.evaluate(value, scope) for argument in self.arguments]
        function = self.function
        too_many = function.max_args is not None and len(args) > function.max_args
        try:
            if len(args) < function.min_args or too_many:
                raise InvalidArguments
            return function.apply(args, scope.randomness) if function.draws else function.apply(args)
        except InvalidArguments:
            raise CallFailed(f"Invalid arguments in {function.name}") from None
