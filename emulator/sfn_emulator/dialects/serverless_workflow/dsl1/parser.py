"""Reading a DSL 1.0 document: every problem collected, located by the JSON pointer of what is wrong
(`/do/1/setGreen/then`), in ValidateStateMachineDefinition's diagnostics form.

Checked: `document` (`dsl` 1.x, `namespace`, `name`, `version`), each task list (a non-empty array
of one-entry objects, unique names), each task being exactly one kind with its required members,
`then` naming `continue`, `exit`, `end` or a task of the same list, switch cases, durations,
raised errors (inline with `type` and `status`, or a name in `use.errors`), and that every runtime
expression compiles (with the variables in scope there). A call or run the emulator cannot perform
is valid: it fails when it runs, unless a mock or callable serves it.
"""

from __future__ import annotations

from typing import Any, Mapping

from msgspec import UNSET

from sfn_emulator.asl.validation import MISSING_TRANSITION_TARGET, DUPLICATE_STATE_NAME, Diagnostic
from sfn_emulator.dialects.serverless_workflow.reading import WorkflowReader
from sfn_emulator.dialects.serverless_workflow.dsl1 import expressions as x
from sfn_emulator.dialects.serverless_workflow.dsl1 import model as m
from sfn_emulator.dialects.serverless_workflow.dsl1.durations import seconds_of

JSON = Any
_EXPRESSION_PROPERTIES = ("if", "while")
_FLOW = (m.CONTINUE, m.EXIT, m.END)


def read_workflow(text: str, document: Any = UNSET) -> tuple[m.Workflow | None, list[Diagnostic]]:
    return _Reader.read(text, document)


class _Reader(WorkflowReader[m.Workflow]):
    def __init__(self, document: Mapping[str, Any]) -> None:
        super().__init__(document)
        use = document.get("use") if isinstance(document.get("use"), Mapping) else {}
        self.errors = dict(use.get("errors") or {}) if isinstance(use.get("errors"), Mapping) else {}
        self.functions = dict(use.get("functions") or {}) if isinstance(use.get("functions"), Mapping) else {}

    def workflow(self) -> m.Workflow:
        head = self.document.get("document")
        if not isinstance(head, Mapping):
            self.problem("The workflow needs a 'document' object", "/document")
            head = {}
        for key in ("dsl", "namespace", "name", "version"):
            if not isinstance(head.get(key), str) or not head.get(key):
                self.problem(f"'document.{key}' must be a non-empty string", f"/document/{key}")
        if isinstance(head.get("dsl"), str) and not head["dsl"].startswith("1."):
            self.problem(f"DSL version '{head['dsl']}' is not a 1.x version", "/document/dsl")
        tasks = self.task_list(self.document.get("do"), "/do", ())
        for name, function in self.functions.items():
            if isinstance(function, Mapping):
                self.task(str(name), dict(function), f"/use/functions/{name}", ())
        timeout = self.timeout(self.document.get("timeout"), "/timeout")
        data_in, data_out = self.data_flow(self.document, "", ())
        return m.Workflow(dict(head), tasks, dict(self.document), self.errors, self.functions, data_in, data_out, timeout)

    def task_list(self, value: JSON, where: str, scope: tuple[str, ...]) -> tuple[m.Task, ...]:
        if not isinstance(value, list) or not value:
            self.problem("A task list is a non-empty array of one-entry objects", where)
            return ()
        tasks: list[m.Task] = []
        for index, entry in enumerate(value):
            if not isinstance(entry, Mapping) or len(entry) != 1 or not isinstance(next(iter(entry.values())), Mapping):
                self.problem("Each entry of a task list is an object of one task: {name: {task}}", f"{where}/{index}")
                continue
            name, spec = next(iter(entry.items()))
            if any(task.name == name for task in tasks):
                self.problem(f"Duplicate task name '{name}' in this list", f"{where}/{index}/{name}", DUPLICATE_STATE_NAME)
            tasks.append(self.task(str(name), dict(spec), f"{where}/{index}/{name}", scope))
        names = {task.name for task in tasks}
        for task in tasks:
            self.flow(task.spec.get("then"), names, f"{task.reference}/then")
            for index, case in enumerate(task.spec.get("switch") or ()):
                if isinstance(case, Mapping) and len(case) == 1 and isinstance(next(iter(case.values())), Mapping):
                    case_name, body = next(iter(case.items()))
                    self.flow(body.get("then"), names, f"{task.reference}/switch/{index}/{case_name}/then")
        return tuple(tasks)

    def flow(self, then: JSON, names: set[str], where: str) -> None:
        if then is None or then in _FLOW or then in names:
            return
        self.problem(f"'then' is {_FLOW} or the name of a task of the same list, not '{then}'", where,
                     MISSING_TRANSITION_TARGET)

    def task(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        kind = m.task_kind(spec)
        if kind is None:
            self.problem(f"Task '{name}' is none of {', '.join(m.KINDS)}", where)
            return m.Task(name, where, "set", spec)
        for key in _EXPRESSION_PROPERTIES:
            if isinstance(spec.get(key), str):
                self.expression(spec[key], f"{where}/{key}", scope)
        self.data_flow(spec, where, scope)
        self.timeout(spec.get("timeout"), f"{where}/timeout")
        reader = getattr(self, f"read_{kind}")
        return reader(name, spec, where, scope)

    # -- each kind ------------------------------------------------------------------------------
    def read_do(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        return m.Task(name, where, "do", spec, self.task_list(spec["do"], f"{where}/do", scope))

    def read_for(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        loop = spec["for"]
        if not isinstance(loop, Mapping) or not isinstance(loop.get("in"), str):
            self.problem("'for' is an object with 'in' (an expression giving the collection)", f"{where}/for")
            return m.Task(name, where, "for", spec)
        self.expression(loop["in"], f"{where}/for/in", scope)
        names = (loop.get("each", "item"), loop.get("at", "index"))
        for key, variable in zip(("each", "at"), names):
            if not x.is_variable_name(variable):
                self.problem(f"'for.{key}' must be a variable name", f"{where}/for/{key}")
        inner = scope + tuple(n for n in names if x.is_variable_name(n))
        if isinstance(spec.get("while"), str):
            self.expression(spec["while"], f"{where}/while", inner)
        return m.Task(name, where, "for", spec, self.task_list(spec.get("do"), f"{where}/do", inner))

    def read_fork(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        fork = spec["fork"]
        if not isinstance(fork, Mapping) or not isinstance(fork.get("compete", False), bool):
            self.problem("'fork' is an object with 'branches' and an optional boolean 'compete'", f"{where}/fork")
            return m.Task(name, where, "fork", spec)
        return m.Task(name, where, "fork", spec, branches=self.task_list(fork.get("branches"), f"{where}/fork/branches", scope))

    def read_try(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        tasks = self.task_list(spec["try"], f"{where}/try", scope)
        catch = spec.get("catch")
        if not isinstance(catch, Mapping):
            self.problem("A try task needs a 'catch' object", f"{where}/catch")
            return m.Task(name, where, "try", spec, tasks)
        variable = catch.get("as", "error")
        if not x.is_variable_name(variable):
            self.problem("'catch.as' must be a variable name", f"{where}/catch/as")
        inner = scope + ((variable,) if x.is_variable_name(variable) else ())
        for key in ("when", "exceptWhen"):
            if isinstance(catch.get(key), str):
                self.expression(catch[key], f"{where}/catch/{key}", inner)
        retry = catch.get("retry")
        if isinstance(retry, str) and retry not in ((self.document.get("use") or {}).get("retries") or {}):
            self.problem(f"'catch.retry' names no retry policy of use.retries: '{retry}'", f"{where}/catch/retry")
        elif isinstance(retry, Mapping):
            if retry.get("delay") is not None:
                self.duration(retry["delay"], f"{where}/catch/retry/delay")
            for key in ("when", "exceptWhen"):
                if isinstance(retry.get(key), str):
                    self.expression(retry[key], f"{where}/catch/retry/{key}", inner)
        handler = self.task_list(catch["do"], f"{where}/catch/do", inner) if "do" in catch else ()
        return m.Task(name, where, "try", spec, tasks, handler=handler)

    def read_switch(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        cases = spec["switch"]
        if not isinstance(cases, list) or not cases:
            self.problem("'switch' is a non-empty array of one-entry case objects", f"{where}/switch")
            return m.Task(name, where, "switch", spec)
        for index, case in enumerate(cases):
            if not isinstance(case, Mapping) or len(case) != 1 or not isinstance(next(iter(case.values())), Mapping):
                self.problem("Each switch case is {name: {when, then}}", f"{where}/switch/{index}")
                continue
            case_name, body = next(iter(case.items()))
            if isinstance(body.get("when"), str):
                self.expression(body["when"], f"{where}/switch/{index}/{case_name}/when", scope)
        return m.Task(name, where, "switch", spec)

    def read_set(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        if not isinstance(spec["set"], (Mapping, str)):
            self.problem("'set' is an object or a runtime expression", f"{where}/set")
        self.expressions(spec["set"], f"{where}/set", scope)
        return m.Task(name, where, "set", spec)

    def read_raise(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        error = spec["raise"].get("error") if isinstance(spec["raise"], Mapping) else None
        if isinstance(error, str):
            if error not in self.errors:
                self.problem(f"'raise.error' names no error of use.errors: '{error}'", f"{where}/raise/error")
        elif not isinstance(error, Mapping) or "type" not in error or "status" not in error:
            self.problem("'raise.error' is an error object with 'type' and 'status', or a name of use.errors",
                         f"{where}/raise/error")
        else:
            self.expressions(error, f"{where}/raise/error", scope)
        return m.Task(name, where, "raise", spec)

    def read_wait(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        self.duration(spec["wait"], f"{where}/wait")
        return m.Task(name, where, "wait", spec)

    def read_emit(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        event = spec["emit"].get("event") if isinstance(spec["emit"], Mapping) else None
        attributes = event.get("with") if isinstance(event, Mapping) else None
        if not isinstance(attributes, Mapping) or not {"source", "type"} <= set(attributes):
            self.problem("'emit.event.with' needs the event's 'source' and 'type'", f"{where}/emit/event/with")
        else:
            self.expressions(attributes, f"{where}/emit/event/with", scope)
        return m.Task(name, where, "emit", spec)

    def read_listen(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        to = spec["listen"].get("to") if isinstance(spec["listen"], Mapping) else None
        if not isinstance(to, Mapping) or len(set(to) & {"one", "any", "all"}) != 1:
            self.problem("'listen.to' is an object with one of 'one', 'any', 'all'", f"{where}/listen/to")
        return m.Task(name, where, "listen", spec)

    def read_call(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        call, arguments = spec["call"], spec.get("with")
        if not isinstance(call, str) or not call:
            self.problem("'call' names a function: http, openapi, asyncapi, grpc, mcp, or a custom one", f"{where}/call")
        elif call == "http":
            endpoint = arguments.get("endpoint") if isinstance(arguments, Mapping) else None
            if not isinstance(arguments, Mapping) or not isinstance(arguments.get("method"), str) or not (
                    isinstance(endpoint, str) or isinstance(endpoint, Mapping) and isinstance(endpoint.get("uri"), str)):
                self.problem("An http call's 'with' needs 'method' and 'endpoint' (a URI, or an object with 'uri')",
                             f"{where}/with")
        if arguments is not None and not isinstance(arguments, Mapping):
            self.problem("'with' is an object of the call's arguments", f"{where}/with")
        self.expressions(arguments, f"{where}/with", scope)
        return m.Task(name, where, "call", spec)

    def read_run(self, name: str, spec: dict[str, JSON], where: str, scope: tuple[str, ...]) -> m.Task:
        run = spec["run"]
        if not isinstance(run, Mapping) or not set(run) & {"container", "script", "shell", "workflow"}:
            self.problem("'run' is an object with one of 'container', 'script', 'shell', 'workflow'", f"{where}/run")
        return m.Task(name, where, "run", spec)

    # -- shared ---------------------------------------------------------------------------------
    def data_flow(self, spec: Mapping[str, JSON], where: str, scope: tuple[str, ...]) -> tuple[JSON, JSON]:
        """`input.from`, `output.as`, `export.as`: expressions, or values holding `${ }` strings."""
        found: list[JSON] = []
        for key, member in (("input", "from"), ("output", "as"), ("export", "as")):
            part = spec.get(key)
            value = part.get(member) if isinstance(part, Mapping) else None
            if isinstance(value, str):
                self.expression(value, f"{where}/{key}/{member}", scope + (("output",) if key == "export" else ()))
            elif value is not None:
                self.expressions(value, f"{where}/{key}/{member}", scope)
            found.append(value)
        return found[0], found[1]

    def expression(self, text: str, where: str, scope: tuple[str, ...]) -> None:
        try:
            x.check(text, scope)
        except x.ExpressionSyntaxError as error:
            self.problem(f"The runtime expression '{text}' does not compile: {error}", where)

    def expressions(self, value: JSON, where: str, scope: tuple[str, ...]) -> None:
        for text in x.expressions_in(value):
            self.expression(text, where, scope)

    def duration(self, value: JSON, where: str) -> float | None:
        """A duration text or object (`seconds_of`): an absent one is a problem; an expression is measured when it runs (None)."""
        return None if x.is_expression(value) else self.measured(value, where, seconds_of)

    def timeout(self, value: JSON, where: str) -> float | None:
        if value is None or isinstance(value, str):  # a string names one of use.timeouts
            return None
        after = value.get("after") if isinstance(value, Mapping) else None
        if after is None:
            self.problem("'timeout' is an object with 'after' (a duration)", where)
            return None
        return self.duration(after, f"{where}/after")
