"""The compiled model of a DSL 1.0 workflow: its tasks as a tree, each with its reference (the JSON
pointer of the task in the document, `/do/0/getPet`, which errors carry as their `instance`)."""

from __future__ import annotations

from typing import Any

from msgspec import Struct

JSON = Any
KINDS = ("call", "do", "emit", "for", "fork", "listen", "raise", "run", "set", "switch", "try", "wait")
"""A task is the one of these its object holds (`for` also holds a `do`, so it is looked at first)."""
CONTINUE, EXIT, END = "continue", "exit", "end"


class Task(Struct, frozen=True):
    name: str
    reference: str  # the JSON pointer of the task, as errors name it (`instance`)
    kind: str
    spec: dict[str, JSON]  # the task's object as written
    tasks: tuple[Task, ...] = ()  # do's, for's and try's subtasks
    branches: tuple[Task, ...] = ()  # fork's
    handler: tuple[Task, ...] = ()  # a try's catch.do


class Workflow(Struct, frozen=True):
    document: dict[str, JSON]  # dsl, namespace, name, version, ...
    tasks: tuple[Task, ...]
    definition: dict[str, JSON]  # the whole document, as `$workflow.definition` reads it
    errors: dict[str, JSON]  # use.errors: reusable errors by name
    functions: dict[str, JSON]  # use.functions: reusable tasks by name
    input_from: JSON = None
    output_as: JSON = None
    timeout_seconds: float | None = None


def task_kind(spec: dict[str, JSON]) -> str | None:
    """Which task an object is: `for` before `do` (a for holds both), `try` before its `catch`."""
    return next((kind for kind in ("for", *KINDS) if kind in spec), None)


def mockable_names(workflow: Workflow) -> list[str]:
    """Tasks a mock test case may name: calls and runs, at any depth."""
    found: list[str] = []

    def walk(tasks: tuple[Task, ...]) -> None:
        for task in tasks:
            if task.kind in ("call", "run"):
                found.append(task.name)
            walk(task.tasks + task.branches + task.handler)

    walk(workflow.tasks)
    return found
