"""Amazon SWF's faults, named after the botocore error shapes; AWS answers them in the
`com.amazonaws.swf.base.model` namespace (the framework's own errors keep Coral's)."""

from __future__ import annotations

from sfn_emulator.protocol.errors import ApiError

NAMESPACE = "com.amazonaws.swf.base.model"


class SwfFault(ApiError):
    namespace = NAMESPACE


class UnknownResourceFault(SwfFault):
    pass


class TypeAlreadyExistsFault(SwfFault):
    pass


class TypeDeprecatedFault(SwfFault):
    pass


class TypeNotDeprecatedFault(SwfFault):
    pass


class DomainAlreadyExistsFault(SwfFault):
    pass


class DomainDeprecatedFault(SwfFault):
    pass


class DefaultUndefinedFault(SwfFault):
    pass


class WorkflowExecutionAlreadyStartedFault(SwfFault):
    pass


class TooManyTagsFault(SwfFault):
    pass


class LimitExceededFault(SwfFault):
    pass


class SwfValidationException(SwfFault):
    """A request the model accepts but SWF's own checks refuse (Coral's validator speaks)."""

    code = "ValidationException"
    namespace = "com.amazon.coral.validate"


def type_label(kind: str, name: str, version: str) -> str:
    """How SWF names a type in its fault messages: `ActivityType=[name=x, version=1]`."""
    return f"{kind}=[name={name}, version={version}]"


def execution_label(workflow_id: str, run_id: str | None) -> str:
    return f"WorkflowExecution=[workflowId={workflow_id}, runId={run_id}]"
