"""Matched events reach their targets, whoever put them: PutEvents through the endpoint, an
`events:putEvents` Task, an execution's status change or a schedule.

moto's EventBridge matches events to rules and delivers to a few kinds of target (CloudWatch Logs,
archives, other event buses, API destinations), but not to state machines, Lambda functions or SNS
topics, and it applies no `Input` or `InputPath`. Its rules' delivery is therefore taken over, once per
process, as moto's backends are per process: every target gets the input EventBridge would give it
(`target_input`), and

- a state machine (`arn:...:states:...:stateMachine:NAME`) starts an execution through the emulator
  that has it (StartExecution, as EventBridge calls it with the rule's role);
- a Lambda function runs as its registered callable, asynchronously, as EventBridge invokes it;
- an SQS queue gets a message (a FIFO queue only with content-based deduplication, as EventBridge
  requires; `SqsParameters.MessageGroupId`), an SNS topic a notification;
- any other target is moto's own delivery.

A target that cannot be delivered to is sent to the target's dead-letter queue, when it has one,
with EventBridge's message attributes (ERROR_CODE, ERROR_MESSAGE, RULE_ARN, TARGET_ARN); retrying
it would fail the same way here, so the retry policy is not played out. The failure is logged.
"""

from __future__ import annotations

import copy
import json
import logging
import sys
import threading
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Protocol

from sfn_emulator.eventbridge.target_input import payload

if TYPE_CHECKING:
    from sfn_emulator.resources.aws.backends import MotoBackends

log = logging.getLogger(__name__)
_MOTO_EVENTS = "moto.events.models"


class DeliveryFailed(Exception):
    """A target could not take the event: `code` and the message as EventBridge reports them."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Destination(Protocol):
    """An emulator that can take events for its state machines and Lambda functions."""

    def start_execution(self, state_machine_arn: str, input_text: str, *, started_by: str,
                        name: str | None = None) -> bool:
        """Start an execution if this emulator has the machine (True); raise DeliveryFailed when it refuses."""

    def invoke_function(self, function_arn: str, event: Any) -> bool:
        """Run the function's callable if this emulator has one registered (True)."""

    def has_state_machine(self, state_machine_arn: str) -> bool:
        """Does this emulator have the state machine?"""


class Router:
    """The process's delivery of matched events (see the module docstring)."""

    def __init__(self) -> None:
        self._destinations: list[Destination] = []
        self._lock = threading.Lock()
        self._moto_delivery: Callable[..., None] | None = None  # moto's own, for the targets it serves
        self._moto: MotoBackends | None = None

    def connect(self, destination: Destination) -> None:
        with self._lock:
            self._destinations.append(destination)

    def disconnect(self, destination: Destination) -> None:
        with self._lock:
            if destination in self._destinations:
                self._destinations.remove(destination)

    def fires(self, destination: Destination, target_arns: list[str]) -> bool:
        """Does a schedule with these targets fire on `destination`'s clock? moto's schedules are the
        process's, and every emulator watches them; one fires each: the emulator that has a target
        state machine, else the one connected last (the emulator a test or program works with now;
        two clocks would fire it twice)."""
        connected = self._connected()
        machines = [arn for arn in target_arns if ":states:" in arn and ":stateMachine:" in arn]
        for machine in machines:
            for candidate in connected:
                if candidate.has_state_machine(machine):
                    return candidate is destination
        return bool(connected) and connected[-1] is destination

    def take_over_delivery(self) -> None:
        """Deliver moto's rules' events from now on (once moto's EventBridge is loaded: importing it
        for a run that never uses it would cost every start-up)."""
        if self._moto_delivery is not None or _MOTO_EVENTS not in sys.modules:
            return
        with self._lock:
            if self._moto_delivery is not None:
                return
            rule_class = sys.modules[_MOTO_EVENTS].Rule
            self._moto_delivery = rule_class.send_to_targets
            router = self

            def send_to_targets(rule: Any, event: dict[str, Any], transform_input: bool = True) -> None:
                # A rule with only a ScheduleExpression matches no event (moto's empty pattern matches all).
                if rule.event_pattern.get_pattern() and rule.event_pattern.matches_event(event):
                    for target in list(rule.targets):
                        router.deliver(rule, target, event)

            rule_class.send_to_targets = send_to_targets

    def deliver(self, rule: Any, target: dict[str, Any], event: dict[str, Any]) -> None:
        """Hand `event` to one target of `rule`; a failure goes to the target's dead-letter queue."""
        arn = str(target.get("Arn", ""))
        parts = arn.split(":")
        service = parts[2] if len(parts) > 5 else ""
        public = _as_delivered(event)
        text = json.dumps(public)
        try:
            text = payload(target, public, rule_arn=rule.arn, rule_name=rule.name)
            if service == "states":
                self.start_execution(arn, text, started_by=rule.arn)
            elif service == "lambda":
                self.invoke_function(arn, json.loads(text))
            elif service == "sqs":
                self.send_message(arn, text, (target.get("SqsParameters") or {}).get("MessageGroupId"))
            elif service == "sns":
                self.call(arn, "publish", TopicArn=arn, Message=text)
            elif self._moto_delivery is not None:
                single = copy.copy(rule)
                single.targets = [target]
                self._moto_delivery(single, event)
        except DeliveryFailed as failure:
            self.dead_letter(target, text, failure, source_arn=rule.arn, source_key="RULE_ARN")
        except Exception as failure:  # a target's fault never stops the delivery to the others
            log.exception("EventBridge could not deliver to %s", arn)
            self.dead_letter(target, text, DeliveryFailed("SDK_CLIENT_ERROR", str(failure)),
                             source_arn=rule.arn, source_key="RULE_ARN")

    def start_execution(self, state_machine_arn: str, input_text: str, *, started_by: str,
                        name: str | None = None) -> None:
        """Start an execution of the machine through the emulator that has it."""
        for destination in self._connected():
            if destination.start_execution(state_machine_arn, input_text, started_by=started_by, name=name):
                return
        raise DeliveryFailed("SDK_CLIENT_ERROR", f"State Machine Does Not Exist: '{state_machine_arn}'")

    def invoke_function(self, function_arn: str, event: Any) -> None:
        """Run the function's registered callable, asynchronously."""
        for destination in self._connected():
            if destination.invoke_function(function_arn, event):
                return
        raise DeliveryFailed("SDK_CLIENT_ERROR", f"Function not found: {function_arn} (no callable is registered for it)")

    def send_message(self, queue_arn: str, body: str, group_id: str | None = None) -> None:
        """A message on an SQS queue of moto's, as EventBridge sends one."""
        account, name = queue_arn.split(":")[4], queue_arn.split(":")[5]
        try:
            url = self.call(queue_arn, "get_queue_url", QueueName=name, QueueOwnerAWSAccountId=account)["QueueUrl"]
        except Exception as missing:
            raise DeliveryFailed("SDK_CLIENT_ERROR", f"The queue {queue_arn} does not exist") from missing
        message: dict[str, Any] = {"QueueUrl": url, "MessageBody": body}
        if name.endswith(".fifo"):
            attributes = self.call(queue_arn, "get_queue_attributes", QueueUrl=url,
                                   AttributeNames=["ContentBasedDeduplication"])
            if attributes.get("Attributes", {}).get("ContentBasedDeduplication") != "true":
                raise DeliveryFailed("SDK_CLIENT_ERROR", "To let EventBridge send messages to your SQS FIFO queue, "
                                                         "you must enable content-based deduplication.")
            message["MessageGroupId"] = group_id or "default"
        self.call(queue_arn, "send_message", **message)

    def dead_letter(self, target: dict[str, Any], body: str, failure: DeliveryFailed, *, source_arn: str,
                    source_key: str) -> None:
        """Log a failed delivery and send `body` to the target's dead-letter queue, if it has one, with
        the error and where it came from (`source_key`: RULE_ARN, or SCHEDULE_ARN for a schedule)."""
        log.warning("%s: target %s failed: %s", source_arn, target.get("Arn"), failure)
        queue = (target.get("DeadLetterConfig") or {}).get("Arn")
        if not queue:
            return
        attributes = {"ERROR_CODE": failure.code, "ERROR_MESSAGE": str(failure), source_key: source_arn,
                      "TARGET_ARN": str(target.get("Arn"))}
        try:
            url = self.call(queue, "get_queue_url", QueueName=queue.split(":")[5],
                            QueueOwnerAWSAccountId=queue.split(":")[4])["QueueUrl"]
            self.call(queue, "send_message", QueueUrl=url, MessageBody=body, MessageAttributes={
                key: {"DataType": "String", "StringValue": value} for key, value in attributes.items()})
        except Exception:
            log.exception("could not send to the dead-letter queue %s", queue)

    def call(self, arn: str, method: str, **params: Any) -> Any:
        """Call `method` of moto's service of `arn`, in the account and region `arn` names."""
        if self._moto is None:
            from sfn_emulator.resources.aws.backends import MotoBackends

            self._moto = MotoBackends()
        parts = arn.split(":")
        return getattr(self._moto.client(parts[2], account=parts[4], region=parts[3]), method)(**params)

    def _connected(self) -> list[Destination]:
        with self._lock:
            return list(self._destinations)


def _as_delivered(event: dict[str, Any]) -> dict[str, Any]:
    """The event as targets receive it: `time` in ISO 8601 (moto keeps epoch seconds), without moto's
    own `ingestion-time` (an event is taken in when it is put, here: its `time` stands for it)."""
    public = {key: value for key, value in event.items() if key != "ingestion-time"}
    if isinstance(public.get("time"), (int, float)):
        public["time"] = datetime.fromtimestamp(public["time"], timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return public


ROUTER = Router()
