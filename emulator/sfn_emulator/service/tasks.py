"""Task tokens: SendTaskSuccess, SendTaskFailure, SendTaskHeartbeat, answered by the engine.

The engine's errors become AWS's: a malformed token is InvalidToken, a token of a task that is
unknown or already closed is TaskDoesNotExist, a token of a task that timed out is TaskTimedOut.
The token is checked before the output: an unknown token with output that is not JSON is
TaskDoesNotExist (or InvalidToken), not InvalidOutput, as AWS answers (issue 28, rule 7).
A token issued by an execution of another account or region is InvalidToken too: AWS's tokens
are opaque to everyone but the regional service of the account that issued them, which alone can
read one (AWS's answer to a foreign token is not on record; this is the answer that reading implies).
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from sfn_emulator.asl.json_reading import JsonTextError, read_json
from sfn_emulator.engine.errors import InvalidTaskToken, TaskNotFound, TaskTimedOutError
from sfn_emulator.service.engine_interfaces import TaskTokenAnswers
from sfn_emulator.service.errors import InvalidOutput, InvalidToken, TaskDoesNotExist, TaskTimedOut
from sfn_emulator.service.locking import unlocked_operation
from sfn_emulator.service.ownership import in_scope
from sfn_emulator.service.registry import Registry
from sfn_emulator.service.store import Store

T = TypeVar("T")


def _answered(call: Callable[[], T]) -> T:
    try:
        return call()
    except InvalidTaskToken:
        raise InvalidToken("Invalid Token: 'Invalid token'") from None
    except TaskTimedOutError:
        raise TaskTimedOut("Task Timed Out: 'Provided task does not exist anymore'") from None
    except TaskNotFound:
        raise TaskDoesNotExist("Task Does Not Exist: 'Provided task does not exist anymore'") from None


class TaskTokens:
    """The task token operations, answered by the engine within the caller's account and region."""

    def __init__(self, registry: Registry, answers: TaskTokenAnswers) -> None:
        self.registry = registry
        self._answers = answers

    def _refuse_foreign(self, store: Store, token: str) -> None:
        issuer = self._answers.task_token_execution(token)
        if issuer is not None and not in_scope(issuer, store.account, store.region):
            raise InvalidToken("Invalid Token: 'Invalid token'")

    @unlocked_operation
    def send_task_success(self, store: Store, *, taskToken: str, output: str) -> dict[str, Any]:
        self._refuse_foreign(store, taskToken)
        _answered(lambda: self._answers.check_task_token(taskToken))  # the token first, then the output
        try:
            value = read_json(output)
        except JsonTextError as problem:
            raise InvalidOutput(f"Invalid Output: '{problem.message}'") from None
        _answered(lambda: self._answers.send_task_success(taskToken, value))
        return {}

    @unlocked_operation
    def send_task_failure(
        self, store: Store, *, taskToken: str, error: str | None = None, cause: str | None = None
    ) -> dict[str, Any]:
        self._refuse_foreign(store, taskToken)
        _answered(lambda: self._answers.send_task_failure(taskToken, error, cause))
        return {}

    @unlocked_operation
    def send_task_heartbeat(self, store: Store, *, taskToken: str) -> dict[str, Any]:
        self._refuse_foreign(store, taskToken)
        _answered(lambda: self._answers.send_task_heartbeat(taskToken))
        return {}
