"""The Step Functions operations served, and the component of `StepFunctionsService` that answers
each: the one place an operation is declared. Its request shape is botocore's model (the wire checks
requests against it); its method is named after it in snake_case on that component."""

from __future__ import annotations

OPERATIONS: dict[str, str] = {
    "CreateStateMachine": "state_machines",
    "DescribeStateMachine": "state_machines",
    "UpdateStateMachine": "state_machines",
    "DeleteStateMachine": "state_machines",
    "ListStateMachines": "state_machines",
    "PublishStateMachineVersion": "versions",
    "ListStateMachineVersions": "versions",
    "DeleteStateMachineVersion": "versions",
    "CreateStateMachineAlias": "aliases",
    "DescribeStateMachineAlias": "aliases",
    "UpdateStateMachineAlias": "aliases",
    "DeleteStateMachineAlias": "aliases",
    "ListStateMachineAliases": "aliases",
    "StartExecution": "executions",
    "StartSyncExecution": "executions",
    "DescribeExecution": "executions",
    "ListExecutions": "executions",
    "StopExecution": "executions",
    "GetExecutionHistory": "executions",
    "DescribeStateMachineForExecution": "executions",
    "RedriveExecution": "executions",
    "CreateActivity": "activities",
    "DescribeActivity": "activities",
    "ListActivities": "activities",
    "DeleteActivity": "activities",
    "GetActivityTask": "activities",
    "SendTaskSuccess": "task_tokens",
    "SendTaskFailure": "task_tokens",
    "SendTaskHeartbeat": "task_tokens",
    "TagResource": "tags",
    "UntagResource": "tags",
    "ListTagsForResource": "tags",
    "DescribeMapRun": "map_runs",
    "ListMapRuns": "map_runs",
    "ValidateStateMachineDefinition": "definitions",
    "TestState": "definitions",
}
