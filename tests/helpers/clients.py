"""boto3 clients for the emulator, configured as users should configure theirs."""

from __future__ import annotations

from typing import Any

import boto3
from botocore.config import Config

TEST_REGION = "us-east-1"


def make_client(endpoint_url: str, *, region: str = TEST_REGION, access_key: str = "testing", **config: Any) -> Any:
    """A Step Functions client with no retries; a 12-digit `access_key` selects that account.

    `inject_host_prefix=False` keeps StartSyncExecution and TestState on the endpoint's own host.
    """
    session = boto3.session.Session(aws_access_key_id=access_key, aws_secret_access_key="testing", region_name=region)
    options: dict[str, Any] = {"inject_host_prefix": False, "retries": {"max_attempts": 0}, **config}
    return session.client("stepfunctions", endpoint_url=endpoint_url, config=Config(**options))
