"""Checking a Task's Resource ARN and what an HTTP Task must name."""

from __future__ import annotations

from sfn_emulator.asl.arns import Arn, split_arn
from sfn_emulator.asl.model import JSONATA
from sfn_emulator.asl.parsing.integration_patterns import AWS_SDK, split_pattern, supports_pattern
from sfn_emulator.asl.parsing.recording import DiagnosticRecorder
from sfn_emulator.asl.parsing.rules import OPTIMIZED_ACTIONS, HTTP_TASK_RESOURCE, HTTP_TASK_REQUIRED


class ResourceFields:
    """The Resource checks, against the optimized integrations AWS lists."""

    def __init__(self, recorder: DiagnosticRecorder) -> None:
        self.recorder = recorder

    def http_task_parameters(self, value: dict, location: str) -> None:
        """An HTTP Task names its endpoint, method and connection in its Parameters (Arguments); in
        JSONata a whole-field expression may give them all, so only an object is checked."""
        field = "Arguments" if self.recorder.language == JSONATA else "Parameters"
        given = value.get(field)
        if field in value and not isinstance(given, dict):
            return
        keys = {key.removesuffix(".$") for key in (given or {})}
        missing = [names[0] for names in HTTP_TASK_REQUIRED if not keys.intersection(names)]
        if missing:
            self.recorder.error(f"These fields are required: [{', '.join(missing)}]", f"{location}/{field}")

    def check_resource(self, resource: str, location: str) -> None:
        """A Task's Resource is an ARN, and an optimized integration one of its service's actions (recorded:
        `dynamodb:query` is refused, it is `aws-sdk:dynamodb:query`); an EXPRESS machine cannot wait on
        activities or callbacks."""
        arn = split_arn(resource)
        if arn is None or not arn.service or _names_no_integration(arn):
            self.recorder.error(
                f"The resource provided {resource} is not recognized. The value is not a valid resource ARN, "
                "or the resource is not available in this region.",
                location,
            )
            return
        if not self.recorder.express or arn.service != "states":
            return
        if arn.resource_type == "activity":
            self.recorder.error("Express state machine does not support Activity ARN", location)
            return
        pattern = split_pattern(arn.resource.partition(":")[2])[1]
        if pattern:
            self.recorder.error(f"Express state machine does not support '{pattern}' service integration ", location)


def is_http_task(resource: str) -> bool:
    arn = split_arn(resource)
    return arn is not None and arn.service == "states" and arn.resource == f"http:{HTTP_TASK_RESOURCE}"


def _names_no_integration(arn: Arn) -> bool:
    """An `arn:<partition>:states:::<service>:<action>[<pattern>]` naming no integration: an action its
    service has no optimized integration for (checked for services whose whole set of actions is listed),
    a pattern the service (or, where AWS lists them one by one, the API) does not support, or an AWS SDK
    integration without `<service>:<action>`."""
    service, has_action, action = arn.resource.partition(":")
    if arn.service != "states" or not has_action:
        return False
    action, pattern = split_pattern(action)
    if not supports_pattern(service, pattern, action):
        return True
    if service == AWS_SDK:
        sdk_service, _, sdk_action = action.partition(":")
        return not sdk_service or not sdk_action
    return service in OPTIMIZED_ACTIONS and action not in OPTIMIZED_ACTIONS[service]
