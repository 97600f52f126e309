"""`Console`: an emulator served over HTTP for the console's browser tests, with boto3 on it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sfn_emulator.runtime import Emulator

ROLE = "arn:aws:iam::123456789012:role/console"


@dataclass(frozen=True)
class Console:
    endpoint_url: str
    emulator: Emulator
    sfn: Any

    @property
    def url(self) -> str:
        return f"{self.endpoint_url}/_emulator/console/"

    def machine(self, name: str, definition: dict[str, Any]) -> str:
        created = self.sfn.create_state_machine(name=name, definition=json.dumps(definition), roleArn=ROLE)
        return created["stateMachineArn"]

    def start(self, machine_arn: str, name: str, execution_input: Any = None) -> str:
        started = self.sfn.start_execution(stateMachineArn=machine_arn, name=name,
                                           input=json.dumps(execution_input or {}))
        self.emulator.engine.run_until_idle()
        return started["executionArn"]
