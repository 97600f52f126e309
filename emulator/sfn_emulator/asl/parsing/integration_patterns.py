"""Which integration patterns each Step Functions service integration supports.

A Task's `arn:<partition>:states:::<service>:<action>[<pattern>]` names a request-response call (no
pattern), a job run (`.sync`, and `.sync:2` for Step Functions' own StartExecution) or a callback
(`.waitForTaskToken`). AWS's "Optimized integrations for Step Functions" table lists, service by service,
which patterns exist; a resource asking a service for a pattern it does not have names no integration,
and is refused as an unrecognized resource. AWS SDK integrations (`aws-sdk:<service>:<action>`) take
request-response and callbacks, never `.sync`.

Some services' integration pages go further and list each API with the patterns it supports ("Not all
APIs support all integration patterns": Athena's GetQueryResults has no `.sync`, CodeBuild's StopBuild
neither): for those services an API they do not list, or a pattern its row does not have, names no
integration either.
"""

from __future__ import annotations

RUN_A_JOB = ".sync"
RUN_A_JOB_V2 = ".sync:2"  # StartExecution's run-a-job with a parsed (JSON) output
WAIT_FOR_CALLBACK = ".waitForTaskToken"
PATTERNS = (WAIT_FOR_CALLBACK, RUN_A_JOB_V2, RUN_A_JOB)  # longest suffix first where they overlap

AWS_SDK = "aws-sdk"

_JOB = frozenset({RUN_A_JOB})
_CALLBACK = frozenset({WAIT_FOR_CALLBACK})
_BOTH = frozenset({RUN_A_JOB, WAIT_FOR_CALLBACK})
_REQUEST_ONLY: frozenset[str] = frozenset()

# Per service (as written in the ARN): the patterns beyond request-response that it supports.
OPTIMIZED_PATTERNS: dict[str, frozenset[str]] = {
    "apigateway": _CALLBACK,
    "athena": _JOB,
    "batch": _JOB,
    "bedrock": _BOTH,
    "codebuild": _JOB,
    "dynamodb": frozenset(),
    "ecs": _BOTH,
    "eks": _BOTH,
    "elasticmapreduce": _JOB,
    "emr-containers": _JOB,
    "emr-serverless": _JOB,
    "events": _CALLBACK,
    "glue": _JOB,
    "databrew": _JOB,
    "lambda": _CALLBACK,
    "mediaconvert": _JOB,
    "sagemaker": _JOB,
    "sns": _CALLBACK,
    "sqs": _CALLBACK,
    "states": frozenset({RUN_A_JOB, RUN_A_JOB_V2, WAIT_FOR_CALLBACK}),
    AWS_SDK: _CALLBACK,
}

# Per API, for the services whose integration page lists every API with its patterns (the developer guide's
# "Run Athena queries", "Run AWS Batch workloads", "Manage AWS CodeBuild builds", "Run Amazon ECS or Fargate
# tasks", "Start an AWS Glue job run", "Create and manage Amazon SageMaker AI jobs" pages): the patterns beyond
# request-response that the API supports.
API_PATTERNS: dict[str, dict[str, frozenset[str]]] = {
    "athena": {
        "startQueryExecution": _JOB,
        "stopQueryExecution": _REQUEST_ONLY,
        "getQueryExecution": _REQUEST_ONLY,
        "getQueryResults": _REQUEST_ONLY,
    },
    "batch": {"submitJob": _JOB},
    "codebuild": {
        "startBuild": _JOB,
        "stopBuild": _REQUEST_ONLY,
        "batchDeleteBuilds": _REQUEST_ONLY,
        "batchGetReports": _REQUEST_ONLY,
        "startBuildBatch": _JOB,
        "stopBuildBatch": _REQUEST_ONLY,
        "retryBuildBatch": _JOB,
        "deleteBuildBatch": _REQUEST_ONLY,
    },
    "ecs": {"runTask": _BOTH},
    "glue": {"startJobRun": _JOB},
    "sagemaker": {
        "createEndpoint": _REQUEST_ONLY,
        "createEndpointConfig": _REQUEST_ONLY,
        "createHyperParameterTuningJob": _JOB,
        "createLabelingJob": _JOB,
        "createModel": _REQUEST_ONLY,
        "createProcessingJob": _JOB,
        "createTrainingJob": _JOB,
        "createTransformJob": _JOB,
        "updateEndpoint": _REQUEST_ONLY,
    },
}


def split_pattern(action: str) -> tuple[str, str]:
    """(`action` without its pattern suffix, the suffix or "" for request-response)."""
    for pattern in PATTERNS:
        if action.endswith(pattern):
            return action.removesuffix(pattern), pattern
    return action, ""


def supports_pattern(service: str, pattern: str, action: str) -> bool:
    """Whether `service`'s integration has `action` with `pattern` ("" for request-response); services AWS
    does not list are not judged, nor the actions of a service whose APIs are not listed one by one."""
    if service in API_PATTERNS:
        apis = API_PATTERNS[service]
        return action in apis and (not pattern or pattern in apis[action])
    if not pattern or service not in OPTIMIZED_PATTERNS:
        return True
    return pattern in OPTIMIZED_PATTERNS[service]
