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


def unknown_execution(workflow_id: str, run_id: str | None) -> str:
    """SWF's message for an execution it does not know: by its run when the request names one
    (captured from the live service in moto's suite), else by its workflow id alone (as Eucalyptus,
    built to answer as SWF does, words it)."""
    if run_id is None:
        return f"Unknown execution, workflowId = {workflow_id}"
    return f"Unknown execution: WorkflowExecution=[workflowId={workflow_id}, runId={run_id}]"
