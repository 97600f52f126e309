"""Intrinsic functions of the JSONPath query language (`States.Format(...)` and the other 17).

A call is parsed once by `compile_intrinsic` (a tokenizer and a recursive-descent parser,
`syntax.py`) into a tree of small nodes (`tree.py`), then evaluated many times by
`Intrinsic.evaluate(value, scope)`. The library is `catalog.py`, its functions by AWS's families:
`text.py`, `json_data.py`, `arrays.py`, `encoding.py`, `math_ops.py`.

What AWS does, as recorded (see fixtures/intrinsics/ for the sources):
- A malformed call or an unknown function name is rejected with the definition, so it is an
  `IntrinsicSyntaxError` here (the validator turns it into an InvalidDefinition diagnostic).
- Everything else fails while the state runs, with `States.Runtime` (not States.IntrinsicFailure)
  and a cause that names the whole expression as written:
  "The function '<expression>' had the following error: <reason>", where the reason is
  "Invalid arguments in States.<Name>" for a wrong argument count, type or value, and
  "The JsonPath argument for the field '<path>' could not be found in the input '<input>'" for a
  path argument that selects nothing. The engine prefixes "An error occurred while executing the
  state ..." as it does for every States.Runtime cause.
- Fractional numbers are truncated toward zero, except by States.MathAdd, which rounds half up.
"""

from __future__ import annotations

from sfn_emulator.asl.intrinsics.catalog import FUNCTION_NAMES
from sfn_emulator.asl.intrinsics.errors import IntrinsicSyntaxError
from sfn_emulator.asl.intrinsics.syntax import IntrinsicCallParser
from sfn_emulator.asl.intrinsics.tree import Intrinsic

__all__ = ["FUNCTION_NAMES", "Intrinsic", "IntrinsicSyntaxError", "compile_intrinsic"]


def compile_intrinsic(text: str) -> Intrinsic:
    """Parse `text`, e.g. "States.Format('Hello {}', $.name)", into an evaluable `Intrinsic`."""
    return Intrinsic(text, IntrinsicCallParser(text).parse())
