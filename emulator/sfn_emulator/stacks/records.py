"""What loading a stack made, as `Emulator.load_stack` answers it and `sfn-emulator stack show` prints it."""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from sfn_emulator.stacks.model import Unresolved

PYTHON = "python"
MOCK = "mock"
ENDPOINT = "endpoint"
NONE = "none"


class StackArn(str):
    """An ARN the stack made, usable wherever an ARN is (`sfn_emulator.run(arn, input)`), with what
    it was made from as attributes."""

    fields: dict[str, Any]

    def __new__(cls, arn: str, **fields: Any) -> StackArn:
        made = super().__new__(cls, arn)
        made.fields = fields
        return made

    @property
    def arn(self) -> str:
        return str(self)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None

    def json(self) -> dict[str, Any]:
        return {"arn": str(self), **self.fields}


class LoadedStateMachine(StackArn):
    """A state machine: `.name`, `.type`, `.definition_source` (where its definition came from), `.stack`."""


class LoadedFunction(StackArn):
    """A Lambda function: `.name`, `.runtime`, `.handler`, `.served_by` (python, mock, endpoint or none), `.stack`."""


class LoadedResource(Struct, frozen=True):
    """A resource made in the emulator's moto backends for integrations to use."""

    type: str
    name: str
    arn: str | None
    stack: str
    url: str | None = None

    def json(self) -> dict[str, Any]:
        return {"type": self.type, "name": self.name, "arn": self.arn, "stack": self.stack,
                **({"url": self.url} if self.url else {})}


class Stack(Struct):
    """The stacks loaded from one path: `state_machines`, `functions`, `resources` and `unresolved`, each
    a mapping from logical id (`Stack/LogicalId` when two of the loaded stacks use the same one)."""

    state_machines: dict[str, LoadedStateMachine] = field(default_factory=dict)
    functions: dict[str, LoadedFunction] = field(default_factory=dict)
    resources: dict[str, LoadedResource] = field(default_factory=dict)
    unresolved: dict[str, list[Unresolved]] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)  # the Outputs' values, by output name

    def state_machine(self, name_or_logical_id: str) -> LoadedStateMachine:
        """The machine with this logical id or name; KeyError naming the ones there are."""
        for logical_id, machine in self.state_machines.items():
            if name_or_logical_id in (logical_id, machine.name):
                return machine
        known = ", ".join(sorted(self.state_machines)) or "none"
        raise KeyError(f"no state machine {name_or_logical_id!r} in the stack (there are: {known})")

    def json(self) -> dict[str, Any]:
        """The document `sfn-emulator stack show` prints."""
        return {
            "state_machines": {key: machine.json() for key, machine in self.state_machines.items()},
            "functions": {key: function.json() for key, function in self.functions.items()},
            "resources": {key: resource.json() for key, resource in self.resources.items()},
            "unresolved": [{"logical_id": key, "what": problem.what, "file": problem.where.file,
                            "line": problem.where.line, "path": problem.where.path}
                           for key, problems in self.unresolved.items() for problem in problems],
            "outputs": self.outputs,
        }
