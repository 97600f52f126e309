"""What a Task's `Resource` names, read once by one grammar: a Lambda function, an activity, or a
service integration (`arn:<partition>:states:::<service>:<action>[<pattern>]`) with its pattern.

The parser reads every Task's Resource here when it builds the model (`TaskState.target`); its checks
against AWS's list of integrations (`asl.parsing.resources`) split the same ARN (`asl.arns`) and the
same pattern suffix (`integration_patterns.split_pattern`). The interpreter and the task resources
route on the reading and never parse the text again.
"""

from __future__ import annotations

import re
from functools import lru_cache

from msgspec import Struct

from sfn_emulator.asl.arns import Arn, split_arn
from sfn_emulator.asl.parsing.integration_patterns import RUN_A_JOB, RUN_A_JOB_V2, WAIT_FOR_CALLBACK, split_pattern

REQUEST_RESPONSE = "REQUEST_RESPONSE"
SYNC = "SYNC"
SYNC2 = "SYNC2"
WAIT_FOR_TASK_TOKEN = "WAIT_FOR_TASK_TOKEN"
WAITING_PATTERNS = frozenset({WAIT_FOR_TASK_TOKEN, SYNC, SYNC2})  # a task that waits after its call

_PATTERN_OF_SUFFIX = {"": REQUEST_RESPONSE, RUN_A_JOB: SYNC, RUN_A_JOB_V2: SYNC2, WAIT_FOR_CALLBACK: WAIT_FOR_TASK_TOKEN}
_SUFFIX_OF_PATTERN = {pattern: suffix for suffix, pattern in _PATTERN_OF_SUFFIX.items()}

LAMBDA_FUNCTION = "lambda"  # arn:aws:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER]
ACTIVITY = "activity"  # arn:aws:states:REGION:ACCOUNT:activity:NAME
INTEGRATION = "integration"  # arn:aws:states:::SERVICE:ACTION[.PATTERN]
UNKNOWN = "unknown"  # an ARN no resource of Step Functions has

_NAME_FIELD = re.compile(r"[\w-]*")  # a partition or a region
_ACCOUNT_FIELD = re.compile(r"\d*")
_LAMBDA_ACCOUNT = re.compile(r"\d{12}")
_STATES_RESOURCE = re.compile(r".+")


# gc=False: a record of strings only, never part of a reference cycle.
class ResourceArn(Struct, frozen=True, gc=False):
    """A Task `Resource`, parsed: which kind of resource, which service and action, which pattern."""

    arn: str
    kind: str  # LAMBDA_FUNCTION, ACTIVITY, INTEGRATION or UNKNOWN
    service: str = ""  # integrations: "lambda", "sqs", "states", "aws-sdk:s3", "http", ...
    action: str = ""  # integrations: "invoke", "sendMessage", "startExecution", ...
    pattern: str = REQUEST_RESPONSE
    region: str = ""
    account: str = ""
    name: str = ""  # function or activity name

    @property
    def resource_type(self) -> str:
        """`resourceType` in Task* history events: the service name (`lambda`, `aws-sdk:s3`)."""
        return self.service

    @property
    def resource(self) -> str:
        """`resource` in Task* history events: the action with its pattern suffix."""
        return self.action + _SUFFIX_OF_PATTERN[self.pattern]

    @property
    def waits(self) -> bool:
        """Whether the task waits after its call: for an activity worker, a callback or a `.sync` job
        (then `$$.Task.Token` exists, for whoever answers it)."""
        return self.kind == ACTIVITY or self.pattern in WAITING_PATTERNS

    def is_action(self, service: str, action: str) -> bool:
        return self.kind == INTEGRATION and self.service == service and self.action == action


@lru_cache(maxsize=4096)
def parse_resource(arn: str) -> ResourceArn:
    """Classify a Task `Resource` the way Step Functions does: a Lambda function's ARN, an activity's, an
    integration's, or UNKNOWN."""
    fields = split_arn(arn)
    if fields is None or not fields.partition or not _NAME_FIELD.fullmatch(fields.partition) \
            or not _NAME_FIELD.fullmatch(fields.region):
        return ResourceArn(arn, UNKNOWN)
    if fields.service == "lambda":
        return _lambda_function(fields) or ResourceArn(arn, UNKNOWN)
    if fields.service != "states" or not _ACCOUNT_FIELD.fullmatch(fields.account) \
            or not _STATES_RESOURCE.fullmatch(fields.resource):
        return ResourceArn(arn, UNKNOWN)
    if fields.resource.startswith("activity:"):
        return ResourceArn(arn, ACTIVITY, region=fields.region, account=fields.account,
                           name=fields.resource.removeprefix("activity:"))
    rest, suffix = split_pattern(fields.resource)
    service, _, action = rest.rpartition(":")
    return ResourceArn(arn, INTEGRATION, service=service, action=action, pattern=_PATTERN_OF_SUFFIX[suffix],
                       region=fields.region, account=fields.account)


def _lambda_function(fields: Arn) -> ResourceArn | None:
    resource = fields.resource_parts
    if not fields.region or not _LAMBDA_ACCOUNT.fullmatch(fields.account) or resource[0] != "function" \
            or len(resource) not in (2, 3) or not all(resource[1:]):
        return None
    return ResourceArn(fields.text, LAMBDA_FUNCTION, service="lambda", region=fields.region, account=fields.account,
                       name=":".join(resource[1:]))
