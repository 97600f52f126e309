"""A dialect case's operations on an emulator with a manual clock, in-process (the control plane's
methods) or over HTTP (boto3 and the events endpoint): shared by the Serverless Workflow and SM4C cases."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from helpers.clients import make_client

from sfn_emulator.runtime import Emulator


class Driver:
    """The operations a case needs, in-process (the control plane's methods) or over HTTP (boto3)."""

    def __init__(self, emulator: Emulator, endpoint: str | None) -> None:
        self.emulator = emulator
        self.endpoint = endpoint
        self.api = make_client(endpoint) if endpoint else None

    def call(self, operation: str, **params: Any) -> dict[str, Any]:
        if self.api is not None:
            return getattr(self.api, operation)(**params)
        return getattr(self.emulator.service, operation)(**params)

    def publish(self, events: Any) -> list[dict[str, Any]]:
        if self.endpoint is None:
            return self.emulator.events.publish(events)
        request = urllib.request.Request(f"{self.endpoint}/_emulator/events", data=json.dumps(events).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())["events"]

    def produced(self, execution_arn: str) -> list[dict[str, Any]]:
        if self.endpoint is None:
            return self.emulator.events.produced(execution_arn)
        with urllib.request.urlopen(f"{self.endpoint}/_emulator/events?executionArn={execution_arn}", timeout=30) as answer:
            return json.loads(answer.read())["events"]

    def settle(self) -> None:
        assert self.emulator.engine.run_until_idle(timeout=30)

    def run_steps(self, steps: list[dict[str, Any]]) -> None:
        """A case's steps, each followed by the engine running until nothing can run: `publish` an
        event or a list (and, with `consumedBy`, check how many executions took it) or `advance` the
        clock by seconds."""
        for step in steps:
            if "publish" in step:
                answers = self.publish(step["publish"])
                if "consumedBy" in step:
                    assert sum(len(answer["consumedBy"]) for answer in answers) == step["consumedBy"], answers
            else:
                self.emulator.clock.advance(step["advance"])
            self.settle()

    def check_execution(self, execution: str, expect: dict[str, Any]) -> None:
        """What a case expects of its execution: `status`, and any of `output`, `error`, `cause`,
        `history` (event types), `produced` (types of the events it produced), `sent` (chosen
        attributes of each produced event), `visited` (states entered), `task_parameters` (function
        calls' parameters), `task_failures` ([resource, error] of each TaskFailed/TaskTimedOut),
        `elapsed_seconds` (clock time from start to end), `subflow_statuses` (the statuses of the
        executions of each named state machine)."""
        described = self.call("describe_execution", executionArn=execution)
        history = self.call("get_execution_history", executionArn=execution, maxResults=1000)["events"]
        types = [event["type"] for event in history]
        assert described["status"] == expect["status"], (described, types)
        if "output" in expect:
            assert json.loads(described["output"]) == expect["output"]
        for key in ("error", "cause"):
            if key in expect:
                assert described.get(key) == expect[key], described
        if "history" in expect:
            assert types == expect["history"]
        if "visited" in expect:
            assert [event["stateEnteredEventDetails"]["name"] for event in history
                    if event["type"].endswith("StateEntered")] == expect["visited"]
        if "task_parameters" in expect:
            assert [json.loads(event["taskScheduledEventDetails"]["parameters"]) for event in history
                    if event["type"] == "TaskScheduled"
                    and event["taskScheduledEventDetails"]["resourceType"] == "function"] == expect["task_parameters"]
        if "sent" in expect:
            produced = self.produced(execution)
            assert [{key: event.get(key) for key in wanted} for event, wanted in zip(produced, expect["sent"])] == expect["sent"]
            assert len(produced) == len(expect["sent"])
        if "elapsed_seconds" in expect:
            end = described.get("stopDate") or history[-1]["timestamp"]
            assert (end - described["startDate"]).total_seconds() == expect["elapsed_seconds"]
        if "produced" in expect:
            assert [event["type"] for event in self.produced(execution)] == expect["produced"]
        if "task_failures" in expect:
            ends = [event.get("taskFailedEventDetails") or event.get("taskTimedOutEventDetails") for event in history
                    if event["type"] in ("TaskFailed", "TaskTimedOut")]
            assert [[end["resource"], end.get("error")] for end in ends] == expect["task_failures"]
        if "subflow_statuses" in expect:
            machines = {item["name"]: item["stateMachineArn"] for item in self.call("list_state_machines")["stateMachines"]}
            for name, statuses in expect["subflow_statuses"].items():
                listed = self.call("list_executions", stateMachineArn=machines[name])["executions"]
                assert sorted(item["status"] for item in listed) == sorted(statuses), listed
