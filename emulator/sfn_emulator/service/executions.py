"""Executions: StartExecution, StartSyncExecution, DescribeExecution, ListExecutions, StopExecution,
GetExecutionHistory, DescribeStateMachineForExecution, RedriveExecution.

AWS's rules kept here:
- StartExecution takes a state machine, version or alias ARN (an alias picks one of its versions
  by weight), optionally suffixed `#TESTCASE` to run a mock test case. For STANDARD machines it is
  idempotent only for a RUNNING execution of the same name and input; otherwise a reused name is
  ExecutionAlreadyExists.
- EXPRESS executions get `...:express:MACHINE:NAME:ID` ARNs; they are neither listed nor
  described (InvalidArn: the resource type `express` is not valid in those contexts).
- StartSyncExecution runs EXPRESS machines only and answers when the execution has ended.
- Only FAILED, TIMED_OUT and ABORTED executions, ended less than 14 days ago, can be redriven.
- A finished execution is gone once its retention has passed (see `registry`); its name is free again.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from msgspec import Struct

from sfn_emulator import dialects
from sfn_emulator.engine.errors import NotRedrivable
from sfn_emulator.engine.execution import Execution, MapRun
from sfn_emulator.process.randomness import Randomness
from sfn_emulator.service import arns, lookups
from sfn_emulator.service.engine_interfaces import ExecutionRunner
from sfn_emulator.service.errors import (
    MISSING_REQUIRED_PARAMETER,
    ExecutionAlreadyExists,
    ExecutionDoesNotExist,
    ExecutionNotRedrivable,
    ResourceNotFound,
    StateMachineDoesNotExist,
    StateMachineTypeNotSupported,
    ValidationException,
    invalid_request,
)
from sfn_emulator.service.execution_answers import (
    billing,
    data_details,
    outcome,
    redrive_status,
    references,
    without_execution_data,
)
from sfn_emulator.service.execution_logs import ExecutionLogs
from sfn_emulator.service.json_input import read_execution_input
from sfn_emulator.service.locking import unlocked_operation
from sfn_emulator.service.mock_cases import MockCases
from sfn_emulator.service.names import check_name
from sfn_emulator.service.nesting import parent_of_new_execution, started_by
from sfn_emulator.service.pagination import Reversed, paginate
from sfn_emulator.service.registry import Registry
from sfn_emulator.service.state_machines import describe_revision
from sfn_emulator.service.store import Alias, ExecutionEntry, Revision, StateMachineRecord, Store

STANDARD = "STANDARD"
EXPRESS = "EXPRESS"
_TYPE_NOT_SUPPORTED = "This operation is not supported by this type of state machine"


class _Target(Struct, frozen=True):
    """What a StartExecution ARN resolves to: the machine, the configuration that runs, and how."""

    record: StateMachineRecord
    revision: Revision
    version_arn: str | None
    alias_arn: str | None


class Executions:
    """The execution operations: executions are filed in the registry's stores and run by the engine
    (`runner`); `logs` learns where each logs; `ids` names them; `routing` picks an alias's version."""

    def __init__(self, registry: Registry, runner: ExecutionRunner, logs: ExecutionLogs, mock_cases: MockCases,
                 ids: Randomness, routing: random.Random) -> None:
        self.registry = registry
        self._runner = runner
        self._logs = logs
        self._mock_cases = mock_cases
        self._ids = ids
        self._routing = routing

    # ------------------------------------------------------------------ look-ups

    def _machine_ref(self, state_machine_arn: str) -> arns.MachineRef:
        """The ARN StartExecution/StartSyncExecution got, with its `#CASE` when a mock configuration serves it."""
        ref = arns.state_machine(state_machine_arn, allow_test_case=True)
        if ref.test_case is not None and not self._mock_cases.loaded():
            raise ValidationException(
                f"The state machine ARN names the mock test case '{ref.test_case}', but no mock configuration "
                "is loaded: start sfn-emulator with --mock-config FILE (or SFN_MOCK_CONFIG)")
        return ref

    def _route(self, alias: Alias) -> str:
        """The version ARN an alias sends this execution to, chosen by weight."""
        point = self._routing.randrange(100)
        for route in alias.routing:
            point -= route["weight"]
            if point < 0:
                return route["stateMachineVersionArn"]
        return alias.routing[-1]["stateMachineVersionArn"]

    def _target(self, store: Store, ref: arns.MachineRef) -> _Target:
        record = lookups.machine(store, ref)
        lookups.refuse_deleting(record)
        if ref.alias is not None:
            alias = record.aliases.get(ref.alias)
            if alias is None:
                raise StateMachineDoesNotExist(f"State Machine Does Not Exist: '{ref.arn}'")
            version_arn = self._route(alias)
            version = record.versions[int(version_arn.rsplit(":", 1)[1])]
            return _Target(record, version.revision, version.arn, alias.arn)
        if ref.version is not None:
            _, version = lookups.version(store, ref)
            return _Target(record, version.revision, version.arn, None)
        return _Target(record, record.current, None, None)

    def _entry(self, store: Store, execution_arn: str) -> ExecutionEntry:
        arns.execution(execution_arn)
        entry = self.registry.retained(store, execution_arn)
        if entry is None:
            raise ExecutionDoesNotExist(f"Execution Does Not Exist: '{execution_arn}'")
        return entry

    def _new_execution(
        self, store: Store, target: _Target, ref: arns.MachineRef, name: str | None, input: str | None,
        trace_header: str | None, start_date: datetime,
    ) -> Execution:
        record = target.record
        if ref.test_case is not None:
            problem = self._mock_cases.start_problem(record.name, ref.test_case,
                                                      dialects.mock_view(target.revision.machine))
            if problem is not None:
                raise ValidationException(problem)
        execution_name = check_name(name) if name is not None else self._ids.uuid()
        input_text = "{}" if input is None else input
        input_value = read_execution_input(input_text)
        if record.type == EXPRESS:
            arn = arns.build(store.region, store.account, arns.EXPRESS, record.name, execution_name, self._ids.uuid())
        else:
            arn = arns.build(store.region, store.account, arns.EXECUTION, record.name, execution_name)
        return Execution(
            arn=arn,
            name=execution_name,
            state_machine_arn=record.arn,
            state_machine_name=record.name,
            machine=target.revision.machine,
            definition=target.revision.definition,
            input=input_text,
            decoded_input=input_value,
            start_date=start_date,
            account=store.account,
            region=store.region,
            role_arn=target.revision.role_arn,
            type=record.type,
            state_machine_version_arn=target.version_arn,
            state_machine_alias_arn=target.alias_arn,
            trace_header=trace_header,
            test_case=ref.test_case,
            parent_execution_arn=parent_of_new_execution(store),
        )

    def record(self, execution_arn: str) -> Execution:
        """The execution `execution_arn` names, in the account and region of the ARN (for the
        emulator's own tools: graphs and the console); ExecutionDoesNotExist if there is none."""
        parsed = arns.execution(execution_arn)
        store = self.registry.store(parsed.account, parsed.region)
        with self.registry.locked(store):
            entry = self.registry.retained(store, execution_arn)
        if entry is None:
            raise ExecutionDoesNotExist(f"Execution Does Not Exist: '{execution_arn}'")
        return entry.execution

    def abort_running(self, stores: list[Store], cause: str | None) -> list[str]:
        """Abort every running execution of `stores` at one moment, as StopExecution with `cause`
        would, and answer their ARNs."""
        running = [entry.execution for store in stores for entry in list(store.executions.values())
                   if entry.execution.is_running]
        if running:  # a map run's children already stopped with their parent are left alone
            self._runner.stop_together(running, None, cause)
        return [execution.arn for execution in running]

    # ------------------------------------------------------------------ operations
    def start_nested_execution(self, params: dict[str, Any], *, parent_execution_arn: str, account: str,
                               region: str) -> dict[str, Any]:
        """StartExecution asked for by a task of `parent_execution_arn` (`ControlPlane`)."""
        with started_by(parent_execution_arn):
            return self.start_execution(account=account, region=region, **params)

    @unlocked_operation
    def start_execution(
        self,
        store: Store,
        *,
        stateMachineArn: str,
        name: str | None = None,
        input: str | None = None,
        traceHeader: str | None = None,
    ) -> dict[str, Any]:
        with self._runner.starting() as start_date:
            with self.registry.locked(store):
                ref = self._machine_ref(stateMachineArn)
                target = self._target(store, ref)
                execution = self._new_execution(store, target, ref, name, input, traceHeader, start_date)
                if target.record.type == STANDARD:
                    existing = self.registry.retained(store, execution.arn)
                    if existing is not None:
                        if existing.execution.is_running and existing.execution.input == execution.input:
                            return {"executionArn": existing.execution.arn, "startDate": existing.execution.start_date}
                        raise ExecutionAlreadyExists(f"Execution Already Exists: '{execution.arn}'")
                    entry = ExecutionEntry(execution, target.revision, store.next_sequence())
                    store.add_execution(entry)
                    try:
                        self.registry.observers.execution_filed(store, entry)
                    except BaseException:
                        store.forget_execution(execution.arn)  # a start that failed leaves nothing behind
                        raise
            self._logs.started(execution, target.revision.logging_configuration)
            self._runner.start(execution)
        return {"executionArn": execution.arn, "startDate": execution.start_date}

    @unlocked_operation
    def start_sync_execution(
        self,
        store: Store,
        *,
        stateMachineArn: str,
        name: str | None = None,
        input: str | None = None,
        traceHeader: str | None = None,
        includedData: str | None = None,
    ) -> dict[str, Any]:
        with self._runner.starting() as start_date:
            with self.registry.locked(store):
                ref = self._machine_ref(stateMachineArn)
                target = self._target(store, ref)
                if target.record.type != EXPRESS:
                    raise StateMachineTypeNotSupported(_TYPE_NOT_SUPPORTED)
                execution = self._new_execution(store, target, ref, name, input, traceHeader, start_date)
            self._logs.started(execution, target.revision.logging_configuration)
            self._runner.start(execution)
        self._runner.wait(execution, None)
        answer: dict[str, Any] = {
            "executionArn": execution.arn,
            "stateMachineArn": execution.state_machine_arn,
            "name": execution.name,
            "startDate": execution.start_date,
            "status": execution.status,
            **outcome(execution),
            **data_details(execution, includedData),
            "billingDetails": billing(execution),
        }
        if execution.trace_header is not None:
            answer["traceHeader"] = execution.trace_header
        return answer

    @unlocked_operation
    def describe_execution(self, store: Store, *, executionArn: str, includedData: str | None = None) -> dict[str, Any]:
        with self.registry.locked(store):
            entry = self._entry(store, executionArn)
            execution = entry.execution
            machine = store.state_machines.get(execution.state_machine_arn)
            status, reason = redrive_status(execution, machine.status if machine else None, self.registry.now())
            if status == "REDRIVABLE" and entry.map_run_arn is not None:  # redriven with its parent's map run
                status = "REDRIVABLE_BY_MAP_RUN"
        described: dict[str, Any] = {
            "executionArn": execution.arn,
            "stateMachineArn": execution.state_machine_arn,
            "name": execution.name,
            "status": execution.status,
            "startDate": execution.start_date,
            **outcome(execution),
            **data_details(execution, includedData),
            **references(execution),
            "redriveCount": execution.redrive_count,
            "redriveStatus": status,
        }
        if entry.map_run_arn is not None:  # a Distributed Map's child: the map run that started it
            described["mapRunArn"] = entry.map_run_arn
        if reason is not None:
            described["redriveStatusReason"] = reason
        if execution.redrive_date is not None:
            described["redriveDate"] = execution.redrive_date
        if execution.trace_header is not None:
            described["traceHeader"] = execution.trace_header
        return described

    @unlocked_operation
    def list_executions(
        self,
        store: Store,
        *,
        stateMachineArn: str | None = None,
        statusFilter: str | None = None,
        maxResults: int | None = None,
        nextToken: str | None = None,
        mapRunArn: str | None = None,
        redriveFilter: str | None = None,
    ) -> dict[str, Any]:
        if stateMachineArn is None and mapRunArn is None:
            raise invalid_request("1 validation error detected: Must provide a StateMachine ARN or MapRun ARN",
                                  MISSING_REQUIRED_PARAMETER)
        if stateMachineArn is not None and mapRunArn is not None:  # "either ..., but not both" (API reference)
            raise ValidationException("Only one of stateMachineArn and mapRunArn may be given")
        with self.registry.locked(store):
            self.registry.purge_expired(store)
            if stateMachineArn is None:
                arns.map_run(mapRunArn or "")
                if mapRunArn not in store.map_runs:
                    raise ResourceNotFound(f"Resource not found: '{mapRunArn}'", resource_name=mapRunArn)
                children = (store.executions.get(child.arn) for child in store.map_runs[mapRunArn].executions)
                entries = sorted((entry for entry in children if entry is not None and entry.map_run_arn == mapRunArn
                                  and (statusFilter is None or entry.execution.status == statusFilter)),
                                 key=lambda entry: entry.sequence)
                return self._execution_page(entries, f"executions:{mapRunArn}:{statusFilter}", maxResults, nextToken,
                                            map_run=store.map_runs[mapRunArn])
            ref = arns.state_machine(stateMachineArn)
            record = lookups.machine(store, ref)
            if record.type != STANDARD:
                raise StateMachineTypeNotSupported(_TYPE_NOT_SUPPORTED)
            if ref.version is not None:
                lookups.version(store, ref)
            if ref.alias is not None and ref.alias not in record.aliases:
                raise StateMachineDoesNotExist(f"State Machine Does Not Exist: '{ref.arn}'")
            entries = [
                entry for entry in store.executions_of(record.arn)
                if (ref.version is None or entry.execution.state_machine_version_arn == ref.arn)
                and (ref.alias is None or entry.execution.state_machine_alias_arn == ref.arn)
                and (statusFilter is None or entry.execution.status == statusFilter)
                and (redriveFilter is None or (entry.execution.redrive_count > 0) == (redriveFilter == "REDRIVEN"))
            ]
            return self._execution_page(entries, f"executions:{stateMachineArn}:{statusFilter}:{redriveFilter}",
                                        maxResults, nextToken)

    def _execution_page(self, entries: list[ExecutionEntry], scope: str, max_results: int | None,
                        next_token: str | None, *, map_run: MapRun | None = None) -> dict[str, Any]:
        """ListExecutions' answer: newest first, paginated. `entries` come in start order. Listed by
        `map_run`, each item also names the map run and how many items the execution processed
        (API reference, ExecutionListItem: mapRunArn and itemCount, only when listed by map run)."""
        page, token = paginate(Reversed(entries), lambda entry: -entry.sequence, scope=scope,
                               max_results=max_results, next_token=next_token, now=self.registry.now())
        positions = {child.arn: index for index, child in enumerate(map_run.executions)} if map_run else {}
        items = []
        for entry in page:
            execution = entry.execution
            item = {
                "executionArn": execution.arn,
                "stateMachineArn": execution.state_machine_arn,
                "name": execution.name,
                "status": execution.status,
                "startDate": execution.start_date,
                **references(execution),
                "redriveCount": execution.redrive_count,
            }
            if execution.stop_date is not None:
                item["stopDate"] = execution.stop_date
            if execution.redrive_date is not None:
                item["redriveDate"] = execution.redrive_date
            if map_run is not None:
                item["mapRunArn"] = map_run.arn
                item["itemCount"] = map_run.item_weight(positions[execution.arn])
            items.append(item)
        return {"executions": items, **({"nextToken": token} if token else {})}

    @unlocked_operation
    def stop_execution(
        self, store: Store, *, executionArn: str, error: str | None = None, cause: str | None = None
    ) -> dict[str, Any]:
        with self.registry.locked(store):
            execution = self._entry(store, executionArn).execution
        if execution.is_running:
            self._runner.stop(execution, error, cause)
        # A finished execution stays as it ended; its stop date is the one it has.
        return {"stopDate": execution.stop_date or self.registry.now()}

    @unlocked_operation
    def get_execution_history(
        self,
        store: Store,
        *,
        executionArn: str,
        maxResults: int | None = None,
        reverseOrder: bool | None = None,
        nextToken: str | None = None,
        includeExecutionData: bool | None = None,
    ) -> dict[str, Any]:
        with self.registry.locked(store):
            execution = self._entry(store, executionArn).execution
        # Event ids are positions in the append-only history (id N is history[N-1]): a page is
        # found by its position, in either order, without sorting or copying the history.
        events = Reversed(execution.history) if reverseOrder else execution.history
        sign = -1 if reverseOrder else 1
        page, token = paginate(
            events, lambda event: sign * event.id,
            scope=f"history:{executionArn}:{bool(reverseOrder)}", max_results=maxResults, next_token=nextToken,
            now=self.registry.now(),
        )
        if includeExecutionData is False:
            answers = [without_execution_data(event) for event in page]
        else:
            answers = [event.as_dict() for event in page]
        return {"events": answers, **({"nextToken": token} if token else {})}

    @unlocked_operation
    def execution_events(self, store: Store, *, executionArn: str) -> list[dict[str, Any]]:
        """Every history event of an execution, in order: what paging GetExecutionHistory to its end
        hands out, in one read. Not an AWS operation: for in-process readers, which need no pages."""
        with self.registry.locked(store):
            execution = self._entry(store, executionArn).execution
        return [event.as_dict() for event in execution.history[:]]

    @unlocked_operation
    def describe_state_machine_for_execution(
        self, store: Store, *, executionArn: str, includedData: str | None = None
    ) -> dict[str, Any]:
        with self.registry.locked(store):
            entry = self._entry(store, executionArn)
        described = {
            "stateMachineArn": entry.execution.state_machine_arn,
            "updateDate": entry.revision.update_date,
            **describe_revision(entry.execution.state_machine_name, entry.revision, includedData),
        }
        if entry.map_run_arn is not None:  # a Distributed Map's child: its map run and the Map's Label
            described["mapRunArn"] = entry.map_run_arn
            described["label"] = entry.execution.state_machine_arn.rsplit("/", 1)[-1]
        return described

    @unlocked_operation
    def redrive_execution(self, store: Store, *, executionArn: str, clientToken: str | None = None) -> dict[str, Any]:
        with self.registry.locked(store):
            entry = self._entry(store, executionArn)
            execution = entry.execution
            if clientToken is not None and clientToken == entry.redrive_client_token and execution.redrive_date:
                return {"redriveDate": execution.redrive_date}  # a repeated request: the same redrive
            machine = store.state_machines.get(execution.state_machine_arn)
            status, reason = redrive_status(execution, machine.status if machine else None, self.registry.now())
            if status == "REDRIVABLE" and entry.map_run_arn is not None:
                raise ExecutionNotRedrivable("Execution is a child execution of a Map Run: redrive its parent execution "
                                             f"to redrive the Map Run '{entry.map_run_arn}'")
            if status != "REDRIVABLE":
                raise ExecutionNotRedrivable(reason or status)
            entry.redrive_client_token = clientToken
            self._logs.started(execution, entry.revision.logging_configuration)
        try:
            self._runner.redrive(execution)
        except NotRedrivable as refusal:
            raise ExecutionNotRedrivable(str(refusal)) from None
        return {"redriveDate": execution.redrive_date or self.registry.now()}
