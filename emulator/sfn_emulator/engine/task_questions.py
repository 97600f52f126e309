"""What the interpreter asks about a task before it runs it, answered on the spot: whether a mock
answers the whole task, whether an activity exists. Questions, not effects: nothing waits for the
answer, so the interpreter asks them without yielding (on the engine thread, like every step)."""

from __future__ import annotations

from typing import Callable

from msgspec import Struct

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.resources.base import TaskRequest, TaskResources


def _every_activity_exists(activity_arn: str, execution_arn: str) -> bool:
    return True


class TaskQuestions(Struct, frozen=True):
    """Answers from the engine's current resource chain and activities (the defaults: an empty chain,
    every activity: an interpreter run with no engine, as in the sans-IO tests)."""

    resources: Callable[[], TaskResources] = TaskResources  # the chain in use now (the runtime may replace it)
    activity_exists: Callable[[str, str], bool] = _every_activity_exists  # (activity ARN, execution ARN)

    def settles_whole_task(self, request: TaskRequest, own: TaskResources | None = None) -> bool:
        """Is the resource that will answer `request` (from `own`, a run's own chain, else the
        engine's) one whose answer is the whole task's result? Then there is no callback, `.sync`
        job or activity worker to wait for."""
        return (own or self.resources()).settles_whole_task(request)

    def check_activity(self, activity_arn: str, execution_arn: str) -> None:
        """Raise AWS's States.Runtime error when the activity does not exist."""
        if not self.activity_exists(activity_arn, execution_arn):
            raise StatesError(names.RUNTIME, f"The activity {activity_arn} does not exist.")
