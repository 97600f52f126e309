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

# States.ALL and States.TaskFailed match these only when named explicitly (ASL spec, "Errors").
NOT_CAUGHT_BY_WILDCARDS = frozenset({RUNTIME, DATA_LIMIT_EXCEEDED})


class StatesError(Exception):
    """A Step Functions error: a name (`States.Timeout`, `MyError`, ...) and an optional cause text."""

    def __init__(self, error: str, cause: str | None = None) -> None:
        super().__init__(f"{error}: {cause}" if cause else error)
        self.error = error
        self.cause = cause

    def __repr__(self) -> str:
        return f"StatesError({self.error!r}, {self.cause!r})"
