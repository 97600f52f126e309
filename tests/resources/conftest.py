"""Servers for the task-resource tests: each test module starts the real emulator over HTTP with the
settings it needs (a functions map, a mock configuration) and drives it with boto3.

- `start_server` (module): a factory; `start_server(functions=..., mock_config=...)` builds
  `sfn_emulator.runtime.Emulator` from those `Settings`, serves it with `sfn_emulator.wire.HttpServer` on a
  free loopback port, and closes it when the module ends.
- `Flow` (flow.py): a boto3 client plus the in-process engine, to wait for executions without
  sleeping.
- `s3` (module) and `bucket`: a boto3 S3 client on the module's server (moto's S3 behind it) and a
  fresh bucket per test, for the modules whose `flow` fixture serves ItemReader/ResultWriter objects.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from flow import Flow, Server
from helpers.clients import TEST_REGION

from sfn_emulator.config import Settings


@pytest.fixture(scope="module")
def start_server() -> Iterator[Callable[..., Server]]:
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.wire import HttpServer

    running: list[tuple[Emulator, HttpServer]] = []

    def start(**settings: Any) -> Server:
        emulator = Emulator(Settings(**settings))
        server = HttpServer(emulator.app, "127.0.0.1", 0).start()
        running.append((emulator, server))
        return Server(server.endpoint_url, emulator)

    yield start
    for emulator, server in reversed(running):
        server.stop()
        emulator.close()


@pytest.fixture(scope="module")
def s3(flow: Flow) -> Any:
    return boto3.client("s3", endpoint_url=flow.server.endpoint_url, region_name=TEST_REGION,
                        aws_access_key_id="testing", aws_secret_access_key="testing",
                        config=Config(retries={"max_attempts": 0}, s3={"addressing_style": "path"}))


@pytest.fixture
def bucket(s3: Any) -> str:
    name = f"bucket-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name
