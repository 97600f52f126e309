"""A state machine's `loggingConfiguration`: AWS's rules for accepting one, and where its logs go.

AWS's rules (API reference, LoggingConfiguration; developer guide, "Logging in CloudWatch Logs"):
- `level` is ALL, ERROR, FATAL or OFF (the request validator refuses others), OFF when absent;
  `includeExecutionData` is false when absent.
- A level other than OFF logs to exactly one destination, a CloudWatch Logs log group:
  "Invalid Logging Configuration: Must specify exactly one Log Destination."
- The log group is named by its ARN with the `:*` qualifier (`arn:aws:logs:REGION:ACCOUNT:log-group:NAME:*`),
  as IAM names log groups: "Invalid Logging Configuration: Log Group ARN must be provided with '*' qualifier."
  (AWS's answer quoted in hashicorp/terraform-provider-aws#17682 and #18614).
- The log group must exist when the machine is created or updated: "Invalid Logging Configuration: Log
  Destination not found." A destination that names no log group of CloudWatch Logs is not found either.
At OFF nothing is logged, and a destination given with it is kept as given, unchecked.
"""

from __future__ import annotations

from typing import Any, Protocol

from msgspec import Struct

from sfn_emulator.service.errors import InvalidLoggingConfiguration

OFF = "OFF"
_ONE_DESTINATION = "Invalid Logging Configuration: Must specify exactly one Log Destination."
_QUALIFIER = "Invalid Logging Configuration: Log Group ARN must be provided with '*' qualifier."
_NOT_FOUND = "Invalid Logging Configuration: Log Destination not found."


class LogGroup(Struct, frozen=True, gc=False):
    """A CloudWatch Logs log group, as a destination's ARN names it."""

    account: str
    region: str
    name: str


class LogGroups(Protocol):
    """CloudWatch Logs as the control plane needs it: whether a log group exists, and writing to it."""

    def exists(self, group: LogGroup) -> bool: ...

    def write(self, group: LogGroup, stream: str, events: list[tuple[int, str]]) -> None:
        """Append `events` ((epoch milliseconds, message), in time order) to `stream`, made when missing."""
        ...


def log_group_of(arn: str) -> LogGroup | None:
    """The log group `arn:PARTITION:logs:REGION:ACCOUNT:log-group:NAME:*` names, or None."""
    parts = arn.split(":")
    if len(parts) < 8 or parts[0] != "arn" or parts[2] != "logs" or parts[5] != "log-group" or parts[-1] != "*":
        return None
    name = ":".join(parts[6:-1])
    return LogGroup(parts[4], parts[3], name) if name and parts[3] and parts[4] else None


def destination_group(configuration: dict[str, Any]) -> LogGroup | None:
    """The log group an accepted configuration logs to, or None when it logs nothing."""
    if configuration.get("level", OFF) == OFF:
        return None
    destination = configuration["destinations"][0]
    return log_group_of(destination["cloudWatchLogsLogGroup"]["logGroupArn"])


def logging_configuration(given: dict[str, Any] | None, log_groups: LogGroups | None) -> dict[str, Any]:
    """The logging configuration with AWS's defaults filled in, or AWS's refusal of it. `log_groups`
    None: no CloudWatch Logs to look in (the control plane on its own), the log group is not looked for."""
    given = given or {}
    level = given.get("level") or OFF
    destinations = given.get("destinations")
    if (destinations is not None and len(destinations) > 1) or (level != OFF and not destinations):
        raise InvalidLoggingConfiguration(_ONE_DESTINATION)
    if level != OFF:
        arn = ((destinations[0] or {}).get("cloudWatchLogsLogGroup") or {}).get("logGroupArn")
        if not arn:
            raise InvalidLoggingConfiguration(_NOT_FOUND)
        if not arn.endswith(":*"):
            raise InvalidLoggingConfiguration(_QUALIFIER)
        group = log_group_of(arn)
        if group is None or (log_groups is not None and not log_groups.exists(group)):
            raise InvalidLoggingConfiguration(_NOT_FOUND)
    configuration: dict[str, Any] = {"level": level, "includeExecutionData": bool(given.get("includeExecutionData"))}
    if destinations:
        configuration["destinations"] = destinations
    return configuration
