"""One emulator's part in the local EventBridge: its Standard executions put their status changes on
their account's default event bus, rules and schedules start its state machines and call its Lambda
callables, and the schedules kept in moto's EventBridge and EventBridge Scheduler fire on its clock.

Schedules are found in moto's backends after every request that may have changed them (rules with a
ScheduleExpression on the default bus, Scheduler schedules in every group), each with a timer of the
engine at its next firing. The timers are passive: they fire when time reaches them (a manual advance,
the real clock, the auto clock jumping for an execution's Wait) and never draw the auto clock forward by
themselves, so an idle emulator with a daily schedule does not run ahead through the calendar. Each
firing is stamped with its own due time, and the next one is set from it.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from sfn_emulator.engine.execution import Execution
from sfn_emulator.engine.observers import EngineObserver
from sfn_emulator.eventbridge.routing import ROUTER, DeliveryFailed
from sfn_emulator.eventbridge.schedule_expressions import (
    InvalidScheduleExpression,
    Schedule,
    rule_schedule,
    scheduler_schedule,
)
from sfn_emulator.eventbridge.status_events import PENDING_REDRIVE, status_change
from sfn_emulator.protocol.errors import ApiError
from sfn_emulator.protocol.history_events import EXECUTION_REDRIVEN
from sfn_emulator.resources.aws import moto_state

if TYPE_CHECKING:
    from sfn_emulator.engine import Engine
    from sfn_emulator.engine.scheduling.timers import Timer
    from sfn_emulator.resources.lambda_functions import LambdaFunctions
    from sfn_emulator.service import StepFunctionsService

log = logging.getLogger(__name__)
_MOTO_EVENTS = "moto.events.models"
_MOTO_SCHEDULER = "moto.scheduler.models"
_DEFAULT_BUS = "default"
_UNIVERSAL_TARGET = "arn:aws:scheduler:::aws-sdk:"
_ONE_MICROSECOND = timedelta(microseconds=1)


class _Watched:
    """A schedule with a timer at its next firing; `signature` tells when it was changed."""

    def __init__(self, signature: tuple[Any, ...], schedule: Schedule) -> None:
        self.signature = signature
        self.schedule = schedule
        self.timer: Timer | None = None


class EventBridge(EngineObserver, moto_state.JournalObserver):
    """See the module docstring. It is also what the console asks about rules and schedules
    (`targeting`, `started_by`: `sfn_emulator.console.views.Triggers`)."""

    def __init__(self, *, engine: Engine, service: StepFunctionsService, functions: LambdaFunctions) -> None:
        self._engine = engine
        self._service = service
        self._functions = functions
        self._started_by: dict[str, str] = {}  # execution ARN -> the rule's or schedule's that started it
        self._watched: dict[tuple[str, ...], _Watched] = {}
        self._lock = threading.Lock()
        self._closed = False
        ROUTER.connect(self)
        moto_state.observe(self)
        self.schedules_changed()  # moto may hold rules and schedules already (made before this emulator)

    def close(self) -> None:
        ROUTER.disconnect(self)
        moto_state.stop_observing(self)
        with self._lock:
            self._closed = True
            for watched in self._watched.values():
                if watched.timer is not None:
                    watched.timer.cancel()
            self._watched.clear()

    def started_by(self, execution_arn: str) -> str | None:
        """The ARN of the rule or schedule that started the execution, if one did."""
        return self._started_by.get(execution_arn)

    def targeting(self, state_machine_arn: str) -> list[dict[str, Any]]:
        """The rules (with an event pattern or a schedule) and the schedules whose targets include the
        machine, each with its next firing on this clock (None for a pattern, or when none is left)."""
        parts = state_machine_arn.split(":")
        with self._lock:
            due = {key: watched.timer.due for key, watched in self._watched.items()
                   if watched.timer is not None and not watched.timer.cancelled}
        found = []
        for key, thing in _targeting_candidates(parts[4], parts[3]):
            if state_machine_arn in _target_arns(key, thing):
                pattern = getattr(thing, "event_pattern", None)
                found.append({"arn": thing.arn, "kind": key[0],
                              "expression": _expression(thing) or json.dumps(pattern.get_pattern() if pattern else {}),
                              "next": due.get(key)})
        return found

    # -- status changes ----------------------------------------------------------------------------
    def execution_started(self, execution: Execution) -> None:
        if execution.redrive_date is not None and execution.history and \
                execution.history[-1].type == EXECUTION_REDRIVEN:
            self._emit(execution, PENDING_REDRIVE, execution.redrive_date)
            self._emit(execution, execution.status, execution.redrive_date)
        else:
            self._emit(execution, execution.status, execution.start_date)

    def execution_finished(self, execution: Execution) -> None:
        self._emit(execution, execution.status, execution.stop_date or self._engine.clock.now())

    def _emit(self, execution: Execution, status: str, at: datetime) -> None:
        """Put the status change on the default bus, when a rule there can hear it (Standard only)."""
        if execution.type != "STANDARD":
            return
        backend = _events_backend(execution.account, execution.region)
        if backend is None:
            return
        ROUTER.take_over_delivery()
        try:
            backend.put_events([status_change(execution, status, at)])
        except Exception:  # a fault of the bus never harms the execution
            log.exception("could not put the status change of %s", execution.arn)

    # -- the Destination interface of the router ----------------------------------------------------
    def start_execution(self, state_machine_arn: str, input_text: str, *, started_by: str,
                        name: str | None = None) -> bool:
        parts = state_machine_arn.split(":")
        params: dict[str, Any] = {"stateMachineArn": state_machine_arn, "input": input_text}
        if name:
            params["name"] = name
        try:
            answer = self._service.handle("StartExecution", params, account=parts[4], region=parts[3])
        except ApiError as refused:
            if refused.code == "StateMachineDoesNotExist":
                return False  # another emulator of this process may have it
            raise DeliveryFailed("SDK_CLIENT_ERROR", f"{refused.code}: {refused.message}") from None
        self._started_by[answer["executionArn"]] = started_by
        return True

    def has_state_machine(self, state_machine_arn: str) -> bool:
        parts = state_machine_arn.split(":")
        try:
            self._service.handle("DescribeStateMachine", {"stateMachineArn": state_machine_arn},
                                 account=parts[4], region=parts[3])
        except ApiError:
            return False
        return True

    def invoke_function(self, function_arn: str, event: Any) -> bool:
        parts = function_arn.split(":")
        if self._functions.lookup(function_arn, parts[3], parts[4]) is None:
            return False
        finished = self._engine.outside_call()  # time flows, and nothing is idle, while it runs

        def run() -> None:
            try:
                self._functions.call(function_arn, event, region=parts[3], account=parts[4])
            except Exception:
                log.exception("the Lambda function %s failed on an EventBridge event", function_arn)
            finally:
                finished()

        threading.Thread(target=run, name="sfn-eventbridge-lambda", daemon=True).start()
        return True

    # -- schedules ----------------------------------------------------------------------------------
    def journal_changed(self, entry: moto_state.Entry | None) -> None:
        self.schedules_changed()

    def schedules_changed(self) -> None:
        """Bring the timers in line with moto's rules and schedules (any thread)."""
        ROUTER.take_over_delivery()
        current = dict(_scheduled())
        now = self._engine.clock.now()
        completed = []
        with self._lock:
            if self._closed:
                return
            for key in [key for key in self._watched if key not in current]:
                self._forget(key)
            for key, thing in current.items():
                signature = _signature(key, thing)
                watched = self._watched.get(key)
                if watched is not None and watched.signature == signature:
                    continue
                if watched is not None:
                    self._forget(key)
                try:
                    schedule = _schedule_of(key, thing, now)
                except InvalidScheduleExpression as problem:
                    log.warning("%s is not scheduled: %s", thing.arn, problem)
                    continue
                watched = self._watched[key] = _Watched(signature, schedule)
                if not self._arm(key, watched, now - _ONE_MICROSECOND):
                    completed.append(key)
        for key in completed:
            self._completed(key)

    def _forget(self, key: tuple[str, ...]) -> None:
        watched = self._watched.pop(key)
        if watched.timer is not None:
            watched.timer.cancel()

    def _arm(self, key: tuple[str, ...], watched: _Watched, after: datetime) -> bool:
        """Set the timer of the next firing after `after` (called locked); False when none is left."""
        due = watched.schedule.next_after(after)
        if due is None:
            watched.timer = None
            return False
        watched.timer = self._engine.set_timer(due, lambda: self._fire(key, watched, due), skippable=True,
                                               passive=True)
        return True

    def _fire(self, key: tuple[str, ...], watched: _Watched, due: datetime) -> None:
        """The engine thread: a schedule fell due at `due`; the next firing is set from it."""
        with self._lock:
            if self._watched.get(key) is not watched:
                return
        thing = _find(key)
        if thing is not None and ROUTER.fires(self, _target_arns(key, thing)):
            if key[0] == "rule":
                event = {"version": "0", "id": self._engine.ids.uuid(), "detail-type": "Scheduled Event",
                         "source": "aws.events", "account": key[1], "time": _iso(due), "region": key[2],
                         "resources": [thing.arn], "detail": {}}
                for target in list(thing.targets):
                    ROUTER.deliver(thing, target, event)
            else:
                self._invoke_schedule_target(thing, due)
        with self._lock:
            more = self._watched.get(key) is watched and self._arm(key, watched, due)
        if not more:
            self._completed(key)

    def _completed(self, key: tuple[str, ...]) -> None:
        """A schedule with no firing left on this clock is deleted when its ActionAfterCompletion says
        DELETE, by the emulator it fires on (on another emulator's clock its time may still be ahead)."""
        thing = _find(key)
        if key[0] == "schedule" and thing is not None and thing.action_after_completion == "DELETE" \
                and ROUTER.fires(self, _target_arns(key, thing)):
            backend = sys.modules[_MOTO_SCHEDULER].scheduler_backends[key[1]][key[2]]
            backend.delete_schedule(key[3], key[4])

    def _invoke_schedule_target(self, schedule: Any, due: datetime) -> None:
        """Run an EventBridge Scheduler schedule's target (templated or universal) at `due`."""
        target = dict(schedule.target or {})
        arn = str(target.get("Arn", ""))
        text = _scheduler_context(str(target.get("Input") or ""), schedule.arn, due, self._engine.ids.uuid())
        try:
            service = arn.split(":")[2] if not arn.startswith(_UNIVERSAL_TARGET) else "aws-sdk"
            if service == "states":
                ROUTER.start_execution(arn, text or "{}", started_by=schedule.arn)
            elif service == "lambda":
                ROUTER.invoke_function(arn, json.loads(text or "{}"))
            elif service == "sqs":
                ROUTER.send_message(arn, text, (target.get("SqsParameters") or {}).get("MessageGroupId"))
            elif service == "sns":
                ROUTER.call(arn, "publish", TopicArn=arn, Message=text)
            elif service == "aws-sdk":
                self._universal_target(arn, text, schedule.arn)
            else:
                raise DeliveryFailed("SDK_CLIENT_ERROR", f"sfn-emulator does not deliver to targets like {arn}")
        except DeliveryFailed as failure:
            ROUTER.dead_letter(target, text, failure, source_arn=schedule.arn, source_key="SCHEDULE_ARN")
        except Exception as failure:
            log.exception("the schedule %s could not invoke %s", schedule.arn, arn)
            ROUTER.dead_letter(target, text, DeliveryFailed("SDK_CLIENT_ERROR", str(failure)),
                               source_arn=schedule.arn, source_key="SCHEDULE_ARN")

    def _universal_target(self, arn: str, text: str, schedule_arn: str) -> None:
        """`arn:aws:scheduler:::aws-sdk:SERVICE:ACTION`: the action called with the Input as its request."""
        service, action = arn[len(_UNIVERSAL_TARGET):].split(":", 1)
        request = json.loads(text or "{}")
        parts = schedule_arn.split(":")
        if service == "sfn" and action == "startExecution":
            machine = str(request.get("StateMachineArn", ""))
            ROUTER.start_execution(machine, str(request.get("Input", "{}")), started_by=schedule_arn,
                                   name=request.get("Name"))
        elif service == "sfn":  # this emulator's own API, with the request's members in its own casing
            params = {key[:1].lower() + key[1:]: value for key, value in request.items()}
            try:
                self._service.handle(action[:1].upper() + action[1:], params, account=parts[4], region=parts[3])
            except ApiError as refused:
                raise DeliveryFailed("SDK_CLIENT_ERROR", f"{refused.code}: {refused.message}") from None
        else:
            from botocore import xform_name

            ROUTER.call(f"arn:aws:{service}:{parts[3]}:{parts[4]}:", xform_name(action), **request)


def _expression(thing: Any) -> str:
    """A rule's or schedule's schedule expression ("" for a rule with only an event pattern)."""
    return getattr(thing, "scheduled_expression", None) or getattr(thing, "schedule_expression", "")


def _targeting_candidates(account: str, region: str) -> list[tuple[tuple[str, ...], Any]]:
    """Every rule of the account's and region's default bus, and every schedule (enabled or not)."""
    found: list[tuple[tuple[str, ...], Any]] = []
    events = sys.modules.get(_MOTO_EVENTS)
    if events is not None and account in events.events_backends and region in events.events_backends[account]:
        bus = events.events_backends[account][region].event_buses.get(_DEFAULT_BUS)
        found += [(("rule", account, region, rule.name), rule) for rule in (bus.rules.values() if bus else [])]
    scheduler = sys.modules.get(_MOTO_SCHEDULER)
    if scheduler is not None and account in scheduler.scheduler_backends and \
            region in scheduler.scheduler_backends[account]:
        for group in scheduler.scheduler_backends[account][region].schedule_groups.values():
            found += [(("schedule", account, region, group.name, schedule.name), schedule)
                      for schedule in group.schedules.values()]
    return found


def _scheduled() -> list[tuple[tuple[str, ...], Any]]:
    """Every enabled rule with a schedule and every enabled Scheduler schedule in moto, by key."""
    found: list[tuple[tuple[str, ...], Any]] = []
    events = sys.modules.get(_MOTO_EVENTS)
    if events is not None:
        for account, regions in list(events.events_backends.items()):
            for region, backend in list(regions.items()):
                bus = backend.event_buses.get(_DEFAULT_BUS)
                for rule in list(bus.rules.values()) if bus is not None else []:
                    if rule.scheduled_expression and rule.state == "ENABLED":
                        found.append((("rule", account, region, rule.name), rule))
    scheduler = sys.modules.get(_MOTO_SCHEDULER)
    if scheduler is not None:
        for account, regions in list(scheduler.scheduler_backends.items()):
            for region, backend in list(regions.items()):
                for group in list(backend.schedule_groups.values()):
                    for schedule in list(group.schedules.values()):
                        if schedule.state == "ENABLED":
                            found.append((("schedule", account, region, group.name, schedule.name), schedule))
    return found


def _find(key: tuple[str, ...]) -> Any:
    """The rule or schedule a key names, as moto holds it now (None when gone or disabled)."""
    for found_key, thing in _scheduled():
        if found_key == key:
            return thing
    return None


def _targets(key: tuple[str, ...], thing: Any) -> list[dict[str, Any]]:
    return list(thing.targets) if key[0] == "rule" else [dict(thing.target or {})]


def _target_arns(key: tuple[str, ...], thing: Any) -> list[str]:
    """The ARNs a rule or schedule delivers to (a universal `sfn` target's machine from its Input)."""
    arns = []
    for target in _targets(key, thing):
        arn = str(target.get("Arn", ""))
        arns.append(arn)
        if arn.startswith(_UNIVERSAL_TARGET + "sfn:"):
            try:
                arns.append(str(json.loads(target.get("Input") or "{}").get("StateMachineArn", "")))
            except (ValueError, AttributeError):
                pass
    return arns


def _signature(key: tuple[str, ...], thing: Any) -> tuple[Any, ...]:
    if key[0] == "rule":
        return (thing.scheduled_expression,)
    return (thing.schedule_expression, thing.schedule_expression_timezone, str(thing.start_date),
            str(thing.end_date))


def _schedule_of(key: tuple[str, ...], thing: Any, now: datetime) -> Schedule:
    if key[0] == "rule":
        return rule_schedule(thing.scheduled_expression, now)
    return scheduler_schedule(thing.schedule_expression, now, zone=thing.schedule_expression_timezone,
                              start=_moment(thing.start_date), end=_moment(thing.end_date))


def _events_backend(account: str, region: str) -> Any:
    """moto's EventBridge of an account and region when its default bus has a rule, else None (and
    moto is never imported here: without a rule there is no one to hear an event)."""
    events = sys.modules.get(_MOTO_EVENTS)
    if events is None or account not in events.events_backends:
        return None
    regions = events.events_backends[account]
    if region not in regions:
        return None
    bus = regions[region].event_buses.get(_DEFAULT_BUS)
    return regions[region] if bus is not None and bus.rules else None


def _moment(value: Any) -> datetime | None:
    """A Scheduler date as moto keeps it (epoch seconds or ISO text), as an aware datetime."""
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, (int, float)) or str(value).replace(".", "", 1).isdigit():
        return datetime.fromtimestamp(float(value), timezone.utc)
    moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _scheduler_context(text: str, schedule_arn: str, due: datetime, execution_id: str) -> str:
    """The Scheduler's context attributes in a target's Input (Scheduler user guide, "Adding context
    attributes"): the schedule's ARN, the scheduled time, an execution id and the attempt number."""
    return (text.replace("<aws.scheduler.schedule-arn>", schedule_arn)
            .replace("<aws.scheduler.scheduled-time>", _iso(due))
            .replace("<aws.scheduler.execution-id>", execution_id)
            .replace("<aws.scheduler.attempt-number>", "1"))
