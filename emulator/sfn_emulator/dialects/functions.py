"""Functions of the workflow dialects (Serverless Workflow, SM4C), resolved one way for both:
a mock test case (the mock configuration's state name: the action's name, else the state's) ▸ a
Python callable registered under the function's name ▸ one registered under its resource (Serverless
Workflow's `resource`, SM4C's `operation`) ▸ a clear `States.Runtime` error naming the function.
The callable gets the call's arguments as its event, as a Lambda task's does."""

from __future__ import annotations

from typing import Any

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.task_targets import LAMBDA_FUNCTION, ResourceArn
from sfn_emulator.engine.effects import Interpreter, Invoke
from sfn_emulator.engine.frame import Run
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.outcomes import settled_result

FUNCTION_NOT_FOUND = "Lambda.ResourceNotFoundException"  # what the task-resource chain answers for no callable


def call_function(name: str, resource: str | None, payload: Any, *, run: Run, state_name: str, attempt: int = 0,
                  timeout: float | None = None) -> Interpreter:
    """Invoke the function `name` (see the module docstring); resumes with its result."""
    references = tuple(dict.fromkeys(reference for reference in (name, resource) if reference))
    for reference in references:
        request = TaskRequest(resource=ResourceArn(reference, LAMBDA_FUNCTION, name=reference), payload=payload,
                              execution_arn=run.execution.arn, state_machine_name=run.execution.state_machine_name,
                              state_name=state_name, account=run.execution.account, region=run.execution.region,
                              attempt=attempt, timeout_seconds=timeout, now=run.now(), test_case=run.execution.test_case,
                              seed=run.request_seed())
        try:
            return settled_result((yield Invoke(request, timeout)))
        except StatesError as error:
            if error.error != FUNCTION_NOT_FOUND:
                raise
    raise StatesError(names.RUNTIME, f"sfn-emulator cannot call the function '{name}' (resource '{resource}'): no mock "
                                     "test case serves the action and no Python callable is registered under "
                                     + " or ".join(f"'{reference}'" for reference in references))
