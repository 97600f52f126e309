"""CloudWatch Logs on moto's backend, as the control plane uses it for state machines' execution logs:
whether a log group exists (checked when a logging configuration is given) and writing log events.
The same log groups a boto3 `logs` client on the emulator's endpoint creates and reads."""

from __future__ import annotations

from typing import Any, Callable, Protocol


class NamedLogGroup(Protocol):
    account: str
    region: str
    name: str


class CloudWatchLogGroups:
    """`clients(service, account=, region=)` gives a boto3 client answered by moto (`MotoBackends.client`)."""

    def __init__(self, clients: Callable[[], Any]) -> None:
        self._clients = clients  # called on first use: boto3 and moto load only when logging is configured

    def _logs(self, group: NamedLogGroup) -> Any:
        return self._clients().client("logs", account=group.account, region=group.region)

    def exists(self, group: NamedLogGroup) -> bool:
        found = self._logs(group).describe_log_groups(logGroupNamePrefix=group.name)["logGroups"]
        return any(candidate["logGroupName"] == group.name for candidate in found)

    def write(self, group: NamedLogGroup, stream: str, events: list[tuple[int, str]]) -> None:
        logs = self._logs(group)
        try:
            logs.create_log_stream(logGroupName=group.name, logStreamName=stream)
        except logs.exceptions.ResourceAlreadyExistsException:
            pass
        logs.put_log_events(logGroupName=group.name, logStreamName=stream,
                            logEvents=[{"timestamp": stamp, "message": message} for stamp, message in events])
