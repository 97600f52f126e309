"""JSONPath as Step Functions evaluates it, and ResultPath.

AWS evaluates paths with Jayway JsonPath (Java); these are its rules, with AWS's own on top:

- Blanks around a path are ignored, and a dot directly before a bracket is dropped (`$.[0]`,
  `$.a.['b']`, `$.[*]`, `$.[?(@.x > 0)]` read as `$[0]`, `$.a['b']`, ...), as in Jayway.
- A *definite* path (only `.name`, `['name']` and `[index]` steps, plus `['a','b']` as the last
  step, which merges the properties that exist into one object) returns the one value it selects,
  or raises `PathNotFound` with Jayway's explanation ("No results for path: $['a']", "Missing
  property in path $['a']", ...), which the caller turns into AWS's `States.Runtime` text.
- An *indefinite* path (wildcard, slice, index list, filter, deep scan `..`, several names before
  further steps) returns the list of everything it selects, and never fails for missing data: `[]`
  when nothing matches, **also when a step before its first indefinite one finds nothing** (`$.items[*]`,
  `$.items[1:]`, `$.a.b[*].c`, `$.a..b` on `{}` all give `[]`). This is AWS's rule, not Jayway's: Jayway's
  default configuration throws PathNotFoundException there ("Missing property in path $['a']"), AWS
  answers `[]` (its recorded executions, as issue #28 reports them; localstack/localstack#12318 reports
  the same against AWS). Only a filter applied to a string, number or boolean still fails (Jayway's
  InvalidPathException, not missing data), as does a path on a variable that is not defined.
- AWS's rules: a path begins with `$`; `$$` reads the Context Object and `$name` a workflow
  variable; a quoted name is taken literally (a backslash only keeps the quote from closing it);
  a Jayway function such as `sum()` is not evaluated but read as a property name (so it is found
  nowhere). A Reference Path (ResultPath, ItemsPath, the `...Path` fields) may only use `.name`,
  `['name']` and `[index]`; a ResultPath cannot read the Context Object or a variable.

Definite paths (nearly all paths in real definitions) are compiled to a tuple of keys and indexes
and read with a plain loop; indefinite ones to Jayway's tokens. Compiling is the only check, so a
definition is refused exactly when one of its paths cannot be evaluated.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Union

from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.errors import RESULT_PATH_MATCH_FAILURE, StatesError
from sfn_emulator.asl.jsonpath_filter import compile_filter
from sfn_emulator.asl.jsonpath_query import Query, QueryInvalid, QueryNotFound, java_class, java_text
from sfn_emulator.asl.jsonpath_tokens import JAVA_INT_MAX, QuerySyntaxError, compile_tokens, quoted_name
from sfn_emulator.asl.model import JSON, ExpressionScope

__all__ = [
    "InvalidPath",
    "JsonPath",
    "JsonResultPath",
    "PathNotFound",
    "compile_path",
    "compile_reference_path",
    "compile_result_path",
    "is_path_text",
]

# One step of a definite path: a property name, an array index, or (only as the last step)
# several property names whose values Jayway merges into one object.
Step = Union[str, int, tuple[str, ...]]

VALUE = "value"
CONTEXT = "context"
VARIABLE = "variable"

_VARIABLE_ROOT = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_BLANKS = " \t\n\r"
_INDEX = re.compile(r"\s*(-?\d+)\s*\]")


class InvalidPath(ValueError):
    """A path that does not compile; the message names the path and the problem."""

    def __init__(self, text: str, problem: str) -> None:
        super().__init__(f"Invalid path '{text}': {problem}")
        self.path = text
        self.problem = problem


class PathNotFound(LookupError):
    """A path selected nothing in the value it was applied to.

    `path` is the path's text and `reason` (also `str()`) Jayway's explanation, e.g.
    "No results for path: $['x']". AWS reports an InputPath/OutputPath failure as
    "Invalid path '<path>' : <reason>" after the interpreter's "An error occurred while
    executing the state ..." prefix.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason


class JsonPath:
    """A compiled path: `evaluate(value, scope)` reads what it selects."""

    __slots__ = ("text", "root", "variable_name", "steps", "query")

    def __init__(
        self,
        text: str,
        root: str,
        variable_name: str | None,
        steps: tuple[Step, ...],
        query: Query | None,
    ) -> None:
        self.text = text
        self.root = root  # VALUE, CONTEXT or VARIABLE
        self.variable_name = variable_name
        self.steps = steps  # the definite path's steps (for an indefinite one, those before its first indefinite step)
        self.query = query  # the whole path's tokens when it is indefinite

    @property
    def is_definite(self) -> bool:
        """True when the path selects at most one value (and so returns it, not a list)."""
        return self.query is None

    @property
    def is_reference_path(self) -> bool:
        """True for the ASL spec's Reference Paths: only `.name`, `['name']` and `[index]` steps."""
        return self.query is None and not any(isinstance(step, tuple) for step in self.steps)

    def evaluate(self, value: JSON, scope: ExpressionScope) -> JSON:
        root = self._root_value(value, scope)
        if self.query is None:
            return self._read(root)
        try:
            return self.query.find(root)
        except QueryNotFound:
            return []  # AWS: an indefinite path that finds nothing is the empty list, wherever it stopped
        except QueryInvalid as invalid:
            raise PathNotFound(self.text, invalid.reason) from None

    def _root_value(self, value: JSON, scope: ExpressionScope) -> JSON:
        if self.root == VALUE:
            return value
        if self.root == CONTEXT:
            return scope.context_object
        try:
            return scope.variable(self.variable_name)  # type: ignore[arg-type]
        except KeyError:
            raise PathNotFound(self.text, f"The variable '${self.variable_name}' is not defined") from None

    def _read(self, root: JSON) -> JSON:
        node = root
        try:
            for step in self.steps:
                if isinstance(step, str):
                    if not isinstance(node, dict):
                        raise _Missing
                    node = node[step]
                elif isinstance(step, int):
                    if not isinstance(node, list):
                        raise _Missing
                    node = node[step]
                else:
                    node = _merge_properties(node, step)
        except (KeyError, IndexError, _Missing):
            _explain_missing(root, self.steps, self.text)
            raise PathNotFound(self.text, f"No results for path: {_jayway_path(self.steps)}") from None
        return node

    def __repr__(self) -> str:
        return f"JsonPath({self.text!r})"


class JsonResultPath:
    """A compiled ResultPath: places a state's result into a copy of its input.

    Only the objects and arrays along the path are copied; the rest is shared, as JSON values are
    never mutated in place. Missing objects along the path are created. When the path crosses a
    value that is not an object (or an array, for an index step, or an index that is out of range)
    `apply` raises `StatesError("States.ResultPathMatchFailure", cause)`. The cause names the
    ResultPath and the whole input (the wording of an AWS answer quoted in a public bug report),
    so `apply` needs no context from the interpreter, which adds no prefix to it.
    """

    __slots__ = ("text", "steps")

    def __init__(self, text: str, steps: tuple[str | int, ...]) -> None:
        self.text = text
        self.steps = steps

    def apply(self, state_input: JSON, result: JSON) -> JSON:
        if not self.steps:
            return result
        return self._write(state_input, 0, state_input, result)

    def _write(self, node: JSON, depth: int, state_input: JSON, result: JSON) -> JSON:
        step = self.steps[depth]
        last = depth == len(self.steps) - 1
        if isinstance(step, str):
            if not isinstance(node, dict):
                raise self._match_failure(state_input)
            copy = dict(node)
            copy[step] = result if last else self._write(node.get(step, {}), depth + 1, state_input, result)
            return copy
        if not isinstance(node, list) or not -len(node) <= step < len(node):
            raise self._match_failure(state_input)
        items = list(node)
        items[step] = result if last else self._write(node[step], depth + 1, state_input, result)
        return items

    def _match_failure(self, state_input: JSON) -> StatesError:
        shown = compact_json(state_input)
        return StatesError(RESULT_PATH_MATCH_FAILURE, f"Unable to apply ReferencePath {self.text} to input {shown}")

    def __repr__(self) -> str:
        return f"JsonResultPath({self.text!r})"


def is_path_text(text: str) -> bool:
    """Does `text` (a `.$` value, say) read as a path rather than an intrinsic call? Blanks around
    a path are ignored, as Jayway ignores them."""
    return text.strip(_BLANKS).startswith("$")


def compile_path(text: str) -> JsonPath:
    """Compile a Path (InputPath, OutputPath, `.$` fields, Choice `Variable`, ...); cached by text."""
    if not isinstance(text, str) or not is_path_text(text):
        raise InvalidPath(str(text), "a path must begin with '$'")
    return _compile_path(text)


@lru_cache(maxsize=4096)
def _compile_path(text: str) -> JsonPath:
    try:
        return _compiled(text)
    except (InvalidPath, QuerySyntaxError) as invalid:
        raise InvalidPath(text, invalid.problem) from None  # named as written, not as normalised


def _compiled(text: str) -> JsonPath:
    source = _without_dot_before_bracket(text.strip(_BLANKS))
    root, variable_name, start = _split_root(source)
    steps, rest = _definite_prefix(source, start)
    if rest == len(source):
        return JsonPath(text, root, variable_name, tuple(steps), None)
    query = Query(compile_tokens(source, start, compile_filter))
    return JsonPath(text, root, variable_name, tuple(steps), query)


def compile_reference_path(text: str) -> JsonPath:
    """Compile a Reference Path: a path that can only identify a single node."""
    path = compile_path(text)
    if not path.is_reference_path:
        raise InvalidPath(text, "a reference path may only use '.name', \"['name']\" and '[index]' steps")
    return path


def compile_result_path(text: str) -> JsonResultPath:
    """Compile a ResultPath: a Reference Path into the state input (`$...`); cached by text."""
    path = compile_reference_path(text)
    if path.root != VALUE:
        raise InvalidPath(text, "a ResultPath must begin with '$.' or '$['; it cannot name the Context Object or a variable")
    return _result_path(path)


@lru_cache(maxsize=4096)
def _result_path(path: JsonPath) -> JsonResultPath:
    return JsonResultPath(path.text, path.steps)  # type: ignore[arg-type]


# --- compiling ---------------------------------------------------------------------------------


def _split_root(text: str) -> tuple[str, str | None, int]:
    """Which value the path reads, the variable's name if any, and where its steps begin."""
    if text.startswith("$$"):
        return CONTEXT, None, 2
    match = _VARIABLE_ROOT.match(text)
    if match:
        return VARIABLE, match.group(1), match.end()
    return VALUE, None, 1


def _definite_prefix(text: str, position: int) -> tuple[list[Step], int]:
    """Read definite steps from `position`; stop at the first indefinite one (or the end)."""
    steps: list[Step] = []
    end = len(text)
    while position < end:
        if text[position] == ".":
            if text.startswith(("..", ".*"), position):
                break
            name_end = position + 1
            while name_end < end and text[name_end] not in ".[":
                name_end += 1
            name = text[position + 1 : name_end]
            if not name:
                raise InvalidPath(text, f"a property name is missing at position {position + 1}")
            if " " in name:
                raise InvalidPath(text, "use bracket notation ['my prop'] for a property name with blanks")
            steps.append(name)
            position = name_end
        elif text[position] == "[":
            bracket = _bracket_step(text, position)
            if bracket is None or (isinstance(bracket[0], tuple) and bracket[1] < end):
                break  # indefinite; several properties before further steps are each followed in turn
            step, position = bracket
            steps.append(step)
        else:
            raise InvalidPath(text, f"unexpected character {text[position]!r} at position {position}")
    return steps, position


def _bracket_step(text: str, position: int) -> tuple[Step, int] | None:
    """The `['name']`, `['a','b']` or `[index]` step at `position`, or None when indefinite."""
    index = _INDEX.match(text, position + 1)
    if index:
        if abs(int(index.group(1))) > JAVA_INT_MAX:
            raise InvalidPath(text, f"the index {index.group(1)} is too large")
        return int(index.group(1)), index.end()
    names: list[str] = []
    cursor = _skip_blanks(text, position + 1)
    if cursor < len(text) and (text[cursor].isalpha() or text[cursor] == "_"):
        raise InvalidPath(text, "a property name in brackets must be quoted: ['name']")
    while cursor < len(text) and text[cursor] in "'\"":
        name, cursor = quoted_name(text, cursor)
        names.append(name)
        cursor = _skip_blanks(text, cursor)
        if text.startswith("]", cursor):
            step: Step = names[0] if len(names) == 1 else tuple(names)
            return step, cursor + 1
        if not text.startswith(",", cursor):
            raise InvalidPath(text, f"expected ',' or ']' at position {cursor}")
        cursor = _skip_blanks(text, cursor + 1)
    if names:
        raise InvalidPath(text, f"expected a quoted property name at position {cursor}")
    return None


def _skip_blanks(text: str, position: int) -> int:
    while position < len(text) and text[position] == " ":
        position += 1
    return position


def _without_dot_before_bracket(text: str) -> str:
    """Jayway reads `$.[0]`, `$.a.['b']` and `$.[*]` as `$[0]`, `$.a['b']` and `$[*]`: a dot
    directly before a bracket (not the `..` of a deep scan, nor inside quotes or filters) is dropped."""
    out: list[str] = []
    quote: str | None = None
    depth = 0
    for position, char in enumerate(text):
        if quote:
            if char == quote and text[position - 1] != "\\":
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif (char == "." and depth == 0 and text.startswith(".[", position)
              and not text.startswith("..", position - 1)):
            continue
        out.append(char)
    return "".join(out)


# --- reading -----------------------------------------------------------------------------------


class _Missing(Exception):
    """Internal: a step found no value of the kind it needs."""


def _merge_properties(node: JSON, names: tuple[str, ...]) -> dict[str, JSON]:
    """Jayway's `['a','b']` leaf: one object holding the named properties that exist."""
    if not isinstance(node, dict):
        raise _Missing
    return {name: node[name] for name in names if name in node}


def _explain_missing(root: JSON, steps: tuple[Step, ...], text: str) -> None:
    """Walk the definite `steps` as Jayway does, raising `PathNotFound` where Jayway throws before
    the last step; returns when only the last step found nothing ("No results for path")."""
    node = root
    for depth, step in enumerate(steps):
        here = _jayway_path(steps[:depth])
        if isinstance(step, int):
            if node is None:
                raise PathNotFound(text, f"The path {here} is null")
            if not isinstance(node, list):
                raise PathNotFound(
                    text, f"Filter: [{step}] can only be applied to arrays. Current context is: {java_text(node)}"
                )
            if not -len(node) <= step < len(node):
                return
            node = node[step]
            continue
        if not isinstance(node, dict):
            fragment = _jayway_path((step,))[1:]
            raise PathNotFound(
                text,
                f"Expected to find an object with property {fragment} in path {here} but found "
                f"'{java_class(node)}'. This is not a json object according to the JsonProvider: "
                "'com.jayway.jsonpath.spi.json.JsonSmartJsonProvider'.",
            )
        if isinstance(step, tuple) or (step not in node and depth == len(steps) - 1):
            return
        if step not in node:
            raise PathNotFound(text, f"Missing property in path {_jayway_path(steps[: depth + 1])}")
        node = node[step]


def _jayway_path(steps: tuple[Step, ...]) -> str:
    """Jayway's normalized form of a path, as its messages show it: `$['a'][0]`."""
    parts = ["$"]
    for step in steps:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        elif isinstance(step, str):
            parts.append(f"['{step}']")
        else:
            parts.append("[" + ", ".join(f"'{name}'" for name in step) + "]")
    return "".join(parts)
