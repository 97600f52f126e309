"""The service's records as plain JSON documents and back: the one shape both the SQLite store and
the snapshot file keep, so a snapshot and a database always hold the same things.

Parsed definitions are never kept: a definition is parsed again from its text when loaded (one
parse per distinct text). Histories are read through the execution's public API (each event is a
mapping, as GetExecutionHistory answers it) and rebuilt as `HistoryEvent`s.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sfn_emulator.asl.model import StateMachine, distributed_map_processors
from sfn_emulator.engine.execution import Execution, HistoryEvent, MapRun
from sfn_emulator.persistence import checks
from sfn_emulator.protocol.history_events import EVENT_MEMBERS, PREVIOUS_EVENT_ID
from sfn_emulator.service.definitions import parse_or_raise
from sfn_emulator.service.store import Alias, ActivityRecord, ExecutionEntry, Revision, StateMachineRecord, Version

Document = dict[str, Any]
STATE_MACHINE_TYPES = frozenset({"STANDARD", "EXPRESS"})
STATE_MACHINE_STATUSES = frozenset({"ACTIVE", "DELETING"})
EXECUTION_STATUSES = frozenset({"RUNNING", "SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED", "PENDING_REDRIVE"})
MAP_RUN_STATUSES = frozenset({"RUNNING", "SUCCEEDED", "FAILED", "ABORTED"})
_TIME_TAG = "$time"  # a datetime inside event details: {"$time": ISO-8601}


def dumps(document: Any) -> str:
    """JSON text of a document; datetimes anywhere become {"$time": ISO-8601}."""
    return _ENCODER.encode(document)


def loads(text: str | bytes) -> Any:
    return json.loads(text, object_hook=_decode_time)


def _encode_time(value: Any) -> Any:
    if isinstance(value, datetime):
        return {_TIME_TAG: value.isoformat()}
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=_encode_time)  # made once: a history has many events


def _decode_time(value: dict[str, Any]) -> Any:
    if len(value) == 1 and _TIME_TAG in value and isinstance(value[_TIME_TAG], str):
        return datetime.fromisoformat(value[_TIME_TAG])
    return value


class Definitions:
    """Parses each (definition text, type) once while a whole state is loaded."""

    def __init__(self) -> None:
        self._parsed: dict[tuple[str, str], StateMachine] = {}

    def parse(self, definition: str, machine_type: str) -> StateMachine:
        key = (definition, machine_type)
        machine = self._parsed.get(key)
        if machine is None:
            machine = self._parsed[key] = parse_or_raise(definition, machine_type)
        return machine


# -- state machines and activities ---------------------------------------------------------------

def revision_document(revision: Revision) -> Document:
    return {"definition": revision.definition, "roleArn": revision.role_arn,
            "logging": revision.logging_configuration, "tracing": revision.tracing_configuration,
            "encryption": revision.encryption_configuration, "revisionId": revision.revision_id,
            "updateDate": revision.update_date, "number": revision.number}


def revision_from(document: Document, machine_type: str, definitions: Definitions) -> Revision:
    definition = checks.string(document["definition"], "definition")
    return Revision(definition, definitions.parse(definition, machine_type),
                    checks.string(document["roleArn"], "roleArn"), document["logging"], document["tracing"],
                    document["encryption"], checks.string(document["revisionId"], "revisionId", optional=True),
                    checks.time(document["updateDate"], "updateDate", optional=True),
                    checks.count(document["number"], "number", optional=True))


def state_machine_document(record: StateMachineRecord) -> Document:
    return {
        "arn": record.arn, "name": record.name, "type": record.type, "creationDate": record.creation_date,
        "current": revision_document(record.current), "createdWith": record.created_with, "tags": record.tags,
        "status": record.status, "nextVersion": record.next_version,
        "versions": [{"arn": v.arn, "number": v.number, "revision": revision_document(v.revision),
                      "description": v.description, "creationDate": v.creation_date}
                     for v in record.versions.values()],
        "aliases": [{"arn": a.arn, "name": a.name, "description": a.description, "routing": a.routing,
                     "creationDate": a.creation_date, "sequence": a.sequence, "updateDate": a.update_date}
                    for a in record.aliases.values()],
    }


def state_machine_from(document: Document, definitions: Definitions) -> StateMachineRecord:
    arn = checks.arn(document["arn"], "state machine arn", "stateMachine")
    where = f"state machine {arn}"
    machine_type = checks.one_of(document["type"], STATE_MACHINE_TYPES, f"{where}: type")
    current = revision_from(document["current"], machine_type, definitions)
    revisions = {current.number: current}  # versions of the current configuration share its record

    def revision(doc: Document) -> Revision:
        if doc["number"] not in revisions:
            revisions[doc["number"]] = revision_from(doc, machine_type, definitions)
        return revisions[doc["number"]]

    versions = {checks.count(v["number"], f"{where}: version number", least=1):
                Version(checks.arn(v["arn"], f"{where}: version arn", "stateMachine"), v["number"], revision(v["revision"]),
                        checks.string(v["description"], f"{where}: version description", optional=True),
                        checks.time(v["creationDate"], f"{where}: version creationDate"))
                for v in document["versions"]}
    aliases = {a["name"]: Alias(checks.arn(a["arn"], f"{where}: alias arn", "stateMachine"),
                                checks.string(a["name"], f"{where}: alias name"),
                                checks.string(a["description"], f"{where}: alias description", optional=True),
                                a["routing"], checks.time(a["creationDate"], f"{where}: alias creationDate"),
                                a["sequence"], checks.time(a["updateDate"], f"{where}: alias updateDate", optional=True))
               for a in document["aliases"]}
    return StateMachineRecord(arn, checks.name(document["name"], f"{where}: name"), machine_type,
                              checks.time(document["creationDate"], f"{where}: creationDate"), current,
                              document["createdWith"], checks.tags(document["tags"], f"{where}: tags"),
                              checks.one_of(document["status"], STATE_MACHINE_STATUSES, f"{where}: status"), versions,
                              checks.count(document["nextVersion"], f"{where}: nextVersion", least=1), aliases)


def activity_document(record: ActivityRecord) -> Document:
    return {"arn": record.arn, "name": record.name, "creationDate": record.creation_date,
            "encryption": record.encryption_configuration, "tags": record.tags}


def activity_from(document: Document) -> ActivityRecord:
    arn = checks.arn(document["arn"], "activity arn", "activity")
    return ActivityRecord(arn, checks.name(document["name"], f"activity {arn}: name"),
                          checks.time(document["creationDate"], f"activity {arn}: creationDate"), document["encryption"],
                          checks.tags(document["tags"], f"activity {arn}: tags"))


# -- executions ----------------------------------------------------------------------------------

def execution_start_document(entry: ExecutionEntry, revision_type: str) -> Document:
    """What an execution started with: written once. `revision_type`: the type of the state machine
    whose configuration it runs (a map run's child runs its parent's)."""
    e = entry.execution
    return {
        "arn": e.arn, "name": e.name, "stateMachineArn": e.state_machine_arn, "stateMachineName": e.state_machine_name,
        "input": e.input, "startDate": e.start_date, "account": e.account, "region": e.region, "roleArn": e.role_arn,
        "type": e.type, "versionArn": e.state_machine_version_arn, "aliasArn": e.state_machine_alias_arn,
        "traceHeader": e.trace_header, "testCase": e.test_case, "parentExecutionArn": e.parent_execution_arn,
        "revision": revision_document(entry.revision), "revisionType": revision_type, "sequence": entry.sequence, "mapRunArn": entry.map_run_arn,
    }


def execution_progress_document(entry: ExecutionEntry, restart_point: tuple[str, Any] | None,
                                variables: dict[str, Any], task_token: str | None) -> Document:
    """Where an execution stands: rewritten as it changes. `variables`: its top level's workflow
    variables as its current top-level state found them; `task_token`: the one that state gave out."""
    e = entry.execution
    return {
        "status": e.status, "stopDate": e.stop_date, "output": e.output, "error": e.error, "cause": e.cause,
        "redriveCount": e.redrive_count, "redriveDate": e.redrive_date,
        "redriveClientToken": entry.redrive_client_token,
        "restartPoint": None if restart_point is None else {"state": restart_point[0], "input": restart_point[1],
                                                            "variables": variables, "taskToken": task_token},
    }


def event_document(event: HistoryEvent) -> Document:
    """One history event as GetExecutionHistory answers it (`as_dict`, the execution's public reading API)."""
    document = event.as_dict()
    document["timestamp"] = {_TIME_TAG: document["timestamp"].isoformat()}  # no encoder callback per event
    return document


def event_from(document: Document) -> HistoryEvent:
    details_key = next((key for key in document if key not in EVENT_MEMBERS), None)
    return HistoryEvent(checks.time(document["timestamp"], "event timestamp"), checks.string(document["type"], "event type"),
                        checks.count(document["id"], "event id", least=1),
                        checks.count(document[PREVIOUS_EVENT_ID], f"event {PREVIOUS_EVENT_ID}"),
                        details_key, document[details_key] if details_key is not None else None)


def execution_from(start: Document, progress: Document, events: list[Document],
                   definitions: Definitions) -> tuple[ExecutionEntry, tuple[str, Any] | None, dict[str, Any], str | None]:
    """The entry, its restart point, its top level's workflow variables and task token."""
    where = f"execution {checks.arn(start['arn'], 'execution arn', 'execution', 'express')}"
    revision = revision_from(start["revision"], checks.one_of(start["revisionType"], STATE_MACHINE_TYPES,
                                                              f"{where}: revisionType"), definitions)
    machine = revision.machine
    if start["mapRunArn"]:  # a map run's child runs its Map state's item processor
        machine = distributed_map_processors(machine).get(start["stateMachineArn"].rsplit("/", 1)[-1]) or machine
    execution = Execution(
        arn=start["arn"], name=checks.string(start["name"], f"{where}: name"),
        state_machine_arn=checks.arn(start["stateMachineArn"], f"{where}: stateMachineArn", "stateMachine"),
        state_machine_name=start["stateMachineName"], machine=machine,
        definition=revision.definition, input=checks.string(start["input"], f"{where}: input"),
        start_date=checks.time(start["startDate"], f"{where}: startDate"),
        account=start["account"], region=start["region"], role_arn=start["roleArn"],
        type=checks.one_of(start["type"], STATE_MACHINE_TYPES, f"{where}: type"),
        state_machine_version_arn=start["versionArn"], state_machine_alias_arn=start["aliasArn"],
        trace_header=start["traceHeader"], test_case=start["testCase"], parent_execution_arn=start["parentExecutionArn"],
        status=checks.one_of(progress["status"], EXECUTION_STATUSES, f"{where}: status"),
        stop_date=checks.time(progress["stopDate"], f"{where}: stopDate", optional=True),
        output=checks.string(progress["output"], f"{where}: output", optional=True),
        error=checks.string(progress["error"], f"{where}: error", optional=True),
        cause=checks.string(progress["cause"], f"{where}: cause", optional=True),
        redrive_count=checks.count(progress["redriveCount"], f"{where}: redriveCount"),
        redrive_date=checks.time(progress["redriveDate"], f"{where}: redriveDate", optional=True),
        history=[event_from(event) for event in events],
    )
    if not execution.is_running:
        execution.finished.set()
    entry = ExecutionEntry(execution, revision, checks.count(start["sequence"], f"{where}: sequence"),
                           checks.string(progress["redriveClientToken"], f"{where}: redriveClientToken", optional=True),
                           start["mapRunArn"])
    point = progress["restartPoint"]
    if point is None:
        return entry, None, {}, None
    variables = point.get("variables", {})
    if not isinstance(variables, dict):
        raise checks.RecordError(f"{where}: restartPoint.variables: expected an object, found {variables!r:.100}")
    return entry, (checks.string(point["state"], f"{where}: restartPoint.state"), point["input"]), variables, \
        checks.string(point.get("taskToken"), f"{where}: restartPoint.taskToken", optional=True)


def map_run_document(map_run: MapRun) -> Document:
    return {
        "arn": map_run.arn, "executionArn": map_run.execution_arn, "stateMachineArn": map_run.state_machine_arn,
        "startDate": map_run.start_date, "maxConcurrency": map_run.max_concurrency,
        "toleratedFailurePercentage": map_run.tolerated_failure_percentage,
        "toleratedFailureCount": map_run.tolerated_failure_count, "status": map_run.status,
        "stopDate": map_run.stop_date, "totalItems": map_run.total_items, "resultsWritten": map_run.results_written,
        "executions": [child.arn for child in map_run.executions], "redriveCount": map_run.redrive_count,
        "batchSizes": map_run.batch_sizes,
    }


def map_run_from(document: Document, executions: dict[str, ExecutionEntry]) -> MapRun:
    where = f"map run {checks.arn(document['arn'], 'map run arn', 'mapRun')}"
    return MapRun(
        document["arn"], document["executionArn"], document["stateMachineArn"],
        checks.time(document["startDate"], f"{where}: startDate"),
        checks.count(document["maxConcurrency"], f"{where}: maxConcurrency"), document["toleratedFailurePercentage"],
        checks.count(document["toleratedFailureCount"], f"{where}: toleratedFailureCount"),
        checks.one_of(document["status"], MAP_RUN_STATUSES, f"{where}: status"),
        checks.time(document["stopDate"], f"{where}: stopDate", optional=True),
        checks.count(document["totalItems"], f"{where}: totalItems"),
        checks.count(document["resultsWritten"], f"{where}: resultsWritten"),
        [executions[arn].execution for arn in document["executions"] if arn in executions], document["redriveCount"],
        list(document.get("batchSizes", [])),
    )
