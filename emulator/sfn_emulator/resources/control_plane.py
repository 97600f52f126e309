"""What task resources need of the Step Functions control plane, as interfaces the service implements.

Nested executions and the `aws-sdk:sfn` integration call this emulator's own API; they see it only
through `ControlPlane` (handed to them by the runtime) and read a finished child through
`FinishedExecution`, so `resources/` never imports the service or the engine above it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

SUCCEEDED = "SUCCEEDED"


class ControlPlane(Protocol):
    """One API operation with botocore's member names, in an account and a region; a refusal raises
    `sfn_emulator.protocol.errors.ApiError` (its `code`, `message` and HTTP `status` as AWS answers them)."""

    def handle(self, operation: str, params: dict[str, Any], *, account: str, region: str) -> dict[str, Any]: ...

    def start_nested_execution(self, params: dict[str, Any], *, parent_execution_arn: str, account: str,
                               region: str) -> dict[str, Any]:
        """StartExecution for a task of `parent_execution_arn`: its child, refused when running executions
        would nest too deep."""
        ...


class FinishedExecution(Protocol):
    """The facts of a finished child execution that `.sync` and `.sync:2` report to the parent."""

    @property
    def arn(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def state_machine_arn(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def input(self) -> str: ...
    @property
    def output(self) -> str | None: ...
    @property
    def error(self) -> str | None: ...
    @property
    def cause(self) -> str | None: ...
    @property
    def start_date(self) -> datetime: ...
    @property
    def stop_date(self) -> datetime | None: ...
