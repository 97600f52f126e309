"""ScheduleLambdaFunction: the registered Python callables (the functions map Step Functions'
Lambda tasks use) run on a thread of their own, with SWF's start-to-close timeout on the clock.
A function nobody registered fails to start (StartLambdaFunctionFailed, with a message saying so)."""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any, Callable

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.resources.lambda_functions import LambdaFunctions
from sfn_emulator.engine.scheduling.timers import Timer
from sfn_emulator.swf.execution import OpenLambda, WorkflowExecution

if TYPE_CHECKING:
    from sfn_emulator.swf.workflows import Workflows


class LambdaRunner:
    """Runs the functions the decisions of `Workflows` schedule (given to it by constructor)."""

    def __init__(self, functions: LambdaFunctions, outside_call: Callable[[Timer | None], Callable[[], None]],
                 hint: str) -> None:
        self._functions = functions
        self._outside_call = outside_call  # the engine's: time follows the wall clock while a function runs
        self._hint = hint

    def start(self, workflows: Workflows, execution: WorkflowExecution,
              scheduled: tuple[OpenLambda, str, str | None, float | None]) -> bool:
        """Called holding the service's lock, right after LambdaFunctionScheduled; answers whether
        it failed to start (an event the decider must see)."""
        open_lambda, name, input_text, timeout = scheduled
        history, now = execution.history, workflows.clock.now
        if self._functions.lookup(name, execution.region, execution.account) is None:
            execution.lambdas.pop(open_lambda.lambda_id, None)
            history.add("StartLambdaFunctionFailed", now(), scheduledEventId=open_lambda.scheduled_event_id,
                        message=f"No function '{name}' is registered with the emulator ({self._hint}).")
            return True
        open_lambda.started_event_id = history.add("LambdaFunctionStarted", now(), scheduledEventId=open_lambda.scheduled_event_id)
        if timeout is not None:
            open_lambda.timer = workflows.deadline(timeout, lambda: self._finish(
                workflows, execution, open_lambda, "LambdaFunctionTimedOut", timeoutType="START_TO_CLOSE"),
                since=history.timestamp(open_lambda.started_event_id))
        finished = self._outside_call(open_lambda.timer)

        def run() -> None:
            try:
                result = self._functions.call(name, _event(input_text), region=execution.region, account=execution.account)
            except StatesError as error:
                self._finish(workflows, execution, open_lambda, "LambdaFunctionFailed", reason=error.error,
                             details=error.cause)
            except Exception as error:  # a broken function fails its task, nothing else
                self._finish(workflows, execution, open_lambda, "LambdaFunctionFailed", reason=type(error).__name__,
                             details=str(error))
            else:
                self._finish(workflows, execution, open_lambda, "LambdaFunctionCompleted", result=json.dumps(result))
            finally:
                finished()

        threading.Thread(target=run, name=f"swf-lambda-{name}", daemon=True).start()
        return False

    def _finish(self, workflows: Workflows, execution: WorkflowExecution, open_lambda: OpenLambda, event_type: str,
                **attributes: Any) -> None:
        with workflows.lock:
            if open_lambda.closed or not execution.is_open:
                return
            open_lambda.closed = True
            if open_lambda.timer is not None:
                open_lambda.timer.cancel()
            execution.lambdas.pop(open_lambda.lambda_id, None)
            execution.history.add(event_type, workflows.clock.now(), scheduledEventId=open_lambda.scheduled_event_id,
                                  startedEventId=open_lambda.started_event_id, **attributes)
            workflows.schedule_decision(execution)


def _event(input_text: str | None) -> Any:
    """The function's event: the input's JSON value (Lambda's payload), or the text itself."""
    if input_text is None:
        return {}
    try:
        return json.loads(input_text)
    except ValueError:
        return input_text
