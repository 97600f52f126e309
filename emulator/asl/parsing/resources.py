"""Checking a Task's Resource ARN and what an HTTP Task must name."""

from __future__ import annotations

from sfn_emulator.asl.arns import Arn, split_arn
from sfn_emulator.asl.model import JSONATA
from sfn_emulator.asl.parsing.recording import DiagnosticRecorder
from sfn_emulator.asl.parsing.rules import OPTIMIZED_ACTIONS, HTTP_TASK_RESOURCE, HTTP_TASK_REQUIRED


class ResourceFields(DiagnosticRecorder):
    """The Resource checks, against the optimized integrations AWS lists."""

    # -- resources ------------------------------------------------------------------------------

    def http_task_parameters(self, value: dict, location: str) -> None:
        """An HTTP Task names its endpoint, method and connection in its Parameters (Arguments); in
        JSONata a whole-field expression may give them all, so only an object is checked."""
        field = "Arguments" if self.language == JSONATA else "Parameters"
        given = value.get(field)
        if field in value and not isinstance(given, dict):
            return
        keys = {key.removesuffix(".$") for key in (given or {})}
        missing = [names[0] for names in HTTP_TASK_REQUIRED if not keys.intersection(names)]
        if missing:
            self.error(f"These fields are required: [{', '.join(missing)}]", f"{location}/{field}")

    def check_resource(self, resource: str, location: str) -> None:
        """A Task's Resource is an ARN, and an optimized integration one of its service's actions (recorded:
        `dynamodb:query` is refused, it is `aws-sdk:dynamodb:query`); an EXPRESS machine cannot wait on
        activities or callbacks."""
        arn = split_arn(resource)
        if arn is None or not arn.service or _unknown_optimized_action(arn):
            self.error(
                f"The resource provided {resource} is not recognized. The value is not a valid resource ARN, "
                "or the resource is not available in this region.",
                location,
            )
            return
        if not self.express or arn.service != "states":
            return
        if arn.resource_type == "activity":
            self.error("Express state machine does not support Activity ARN", location)
            return
        action = arn.resource.partition(":")[2]
        for pattern in (".waitForTaskToken", ".sync:2", ".sync"):
            if action.endswith(pattern):
                self.error(f"Express state machine does not support '{pattern}' service integration ", location)
                return


def is_http_task(resource: str) -> bool:
    arn = split_arn(resource)
    return arn is not None and arn.service == "states" and arn.resource == f"http:{HTTP_TASK_RESOURCE}"


def _unknown_optimized_action(arn: Arn) -> bool:
    """An `arn:<partition>:states:::<service>:<action>` naming an action its service has no optimized
    integration for (only services whose whole set of actions is listed here are checked)."""
    service, has_action, action = arn.resource.partition(":")
    if arn.service != "states" or not has_action or service not in OPTIMIZED_ACTIONS:
        return False
    for pattern in (".waitForTaskToken", ".sync:2", ".sync"):
        action = action.removesuffix(pattern)
    return action not in OPTIMIZED_ACTIONS[service]
