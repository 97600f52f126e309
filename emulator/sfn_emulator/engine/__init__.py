"""The engine: the interpreter (pure generators of effects) and the scheduler that runs them."""

from sfn_emulator.engine.execution import Execution
from sfn_emulator.engine.scheduler import ActivityTask, Engine

__all__ = ["ActivityTask", "Engine", "Execution"]
