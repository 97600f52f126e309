"""The one currency of failure inside the language and the engine: `StatesError(error, cause)`."""

from __future__ import annotations

ALL = "States.ALL"
TIMEOUT = "States.Timeout"
HEARTBEAT_TIMEOUT = "States.HeartbeatTimeout"
TASK_FAILED = "States.TaskFailed"
PERMISSIONS = "States.Permissions"
RESULT_PATH_MATCH_FAILURE = "States.ResultPathMatchFailure"
PARAMETER_PATH_FAILURE = "States.ParameterPathFailure"
QUERY_EVALUATION_ERROR = "States.QueryEvaluationError"
BRANCH_FAILED = "States.BranchFailed"
NO_CHOICE_MATCHED = "States.NoChoiceMatched"
INTRINSIC_FAILURE = "States.IntrinsicFailure"
EXCEED_TOLERATED_FAILURE_THRESHOLD = "States.ExceedToleratedFailureThreshold"
ITEM_READER_FAILED = "States.ItemReaderFailed"
RESULT_WRITER_FAILED = "States.ResultWriterFailed"
RUNTIME = "States.Runtime"
DATA_LIMIT_EXCEEDED = "States.DataLimitExceeded"

# The ASL spec says States.ALL does not match States.Runtime nor States.DataLimitExceeded; AWS's
# recorded executions show States.ALL catching States.DataLimitExceeded, and AWS wins.
NOT_CAUGHT_BY_WILDCARDS = frozenset({RUNTIME})


def error_equals_matches(error_equals: tuple[str, ...] | list[str], error: str | None, *,
                         heartbeat: bool = False) -> bool:
    """Whether a Retrier's or Catcher's `ErrorEquals` names `error`: by name, or by the wildcards
    `States.ALL` (any error but States.Runtime) and `States.TaskFailed` (any but States.Timeout too).
    A missed heartbeat (`heartbeat`, reported as States.Timeout) is also named `States.HeartbeatTimeout`."""
    for name in error_equals:
        if name == error or (heartbeat and name == HEARTBEAT_TIMEOUT):
            return True
        if error in NOT_CAUGHT_BY_WILDCARDS:
            continue
        if name == ALL or (name == TASK_FAILED and error != TIMEOUT):
            return True
    return False


class StatesError(Exception):
    """A Step Functions error: a name (`States.Timeout`, `MyError`, ...) and an optional cause text.
    The name is None when nothing named it (a Fail state without Error, SendTaskFailure without error)."""

    def __init__(self, error: str | None, cause: str | None = None) -> None:
        super().__init__(f"{error}: {cause}" if cause else str(error))
        self.error = error
        self.cause = cause

    def __repr__(self) -> str:
        return f"StatesError({self.error!r}, {self.cause!r})"


class HeartbeatTimedOut(StatesError):
    """A task whose worker or callback missed its heartbeat. AWS reports it as States.Timeout (in its
    history, and in the error output a Catcher passes on), and names it States.HeartbeatTimeout only
    in Catch and Retry ("HeartbeatTimeout is only available inside the Catch and Retry fields"): a
    rule naming either, or States.ALL, matches it; States.TaskFailed, which leaves out States.Timeout,
    does not."""

    def __init__(self) -> None:
        super().__init__(TIMEOUT)
