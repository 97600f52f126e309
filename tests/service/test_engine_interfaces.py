"""The engine offers each interface the service components are given, method for method: a change
of an engine entry point the control plane calls shows here, not as a failure deep in an operation."""

from __future__ import annotations

import inspect

import pytest

from sfn_emulator.engine import Engine
from sfn_emulator.service.engine_interfaces import ActivityQueues, ExecutionRunner, MapRunSettings, TaskTokenAnswers

INTERFACES = [ExecutionRunner, ActivityQueues, TaskTokenAnswers, MapRunSettings]
METHODS = [(interface, name) for interface in INTERFACES
           for name, member in vars(interface).items() if inspect.isfunction(member) and not name.startswith("_")]


def _parameters(function: object) -> list[tuple[str, object, object]]:
    return [(parameter.name, parameter.kind, parameter.default)
            for parameter in inspect.signature(function).parameters.values()]  # type: ignore[arg-type]


def test_every_interface_declares_methods() -> None:
    assert {interface for interface, _ in METHODS} == set(INTERFACES)


@pytest.mark.parametrize(("interface", "name"), METHODS, ids=[f"{i.__name__}.{n}" for i, n in METHODS])
def test_the_engine_has_the_method_with_its_parameters(interface: type, name: str) -> None:
    assert _parameters(getattr(Engine, name)) == _parameters(getattr(interface, name))
