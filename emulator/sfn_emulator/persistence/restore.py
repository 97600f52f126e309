"""The whole state as one document (`capture`), and back into a running emulator (`build`, then
`install`, which resumes what was running).

What a loaded execution that was RUNNING does (the rule docs/persistence.md states):
- a top-level execution goes on in the top-level state it was in, from the input and with the
  workflow variables that state was entered with; its history goes on from its last event (the
  state is not entered again when its …StateEntered event is there). A Task attempt that was
  waiting on someone outside (a callback's message sent, an activity a worker took, a `.sync` job
  submitted) waits on unseen, with the same token and nothing recorded or sent again
  (`engine.scheduling.lifecycle.resumed_attempt`); what had not yet gone out starts again within
  the state, as a retry would: a Wait ends at its entry time plus its duration, on the clock; an
  activity no worker took is queued again and an unanswered call made again, with the task token
  given out before; a Parallel's branches or an inline Map's iterations run again. Its
  TimeoutSeconds still counts from its start date, on the clock.
- a Distributed Map's child execution is closed as aborted (States.Runtime, `INTERRUPTED_CAUSE`),
  and its map run too: its parent enters the Map state again and starts a new run.
- an execution whose history is empty starts from the beginning (ExecutionStarted is written).
A failed, timed-out or aborted execution keeps the state it stopped in: RedriveExecution works on it.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from sfn_emulator.clock.virtual_clock import Clock
from sfn_emulator.engine import Engine
from sfn_emulator.engine.execution import ABORTED, RUNNING, SUCCEEDED
from sfn_emulator.persistence import checks, records
from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import ApiError
from sfn_emulator.service.store import ExecutionEntry, Store

INTERRUPTED_CAUSE = ("The emulator stopped while this map run's item ran; its parent execution entered the "
                     "Map state again and started a new map run.")


class StateError(ValueError):
    """A state document that cannot be loaded; the message says what is wrong."""


def capture(service: StepFunctionsService, engine: Engine, clock: Clock) -> records.Document:
    """Every resource of every (account, region), executions with their histories, and the clock."""
    state: records.Document = {"stateMachines": [], "activities": [], "mapRuns": [], "executions": []}
    with service.lock:
        for store in service.stores():
            state["stateMachines"] += [records.state_machine_document(r) for r in store.state_machines.values()]
            state["activities"] += [records.activity_document(r) for r in store.activities.values()]
            state["mapRuns"] += [records.map_run_document(r) for r in store.map_runs.values()]
            for entry in store.executions.values():
                execution = entry.execution
                record = store.state_machines.get(execution.state_machine_arn.split("/")[0])
                events = execution.history[:]  # read after the status the progress document holds
                state["executions"].append({
                    "start": records.execution_start_document(entry, record.type if record else execution.type),
                    "progress": records.execution_progress_document(
                        entry, engine.restart_point(execution.arn), engine.top_variables(execution.arn),
                        engine.top_task_token(execution.arn)),
                    "events": [records.event_document(event) for event in events],
                })
    state["clock"] = {"time": clock.now(), "mode": clock.mode}
    return state


class Loaded(Struct):
    """Stores built from a state document, not yet installed, and what was running in them."""

    stores: list[Store]
    # (entry, restart point, top-level variables and task token, type of the state machine whose
    # configuration it runs)
    running: list[tuple[ExecutionEntry, tuple[str, Any] | None, dict[str, Any], str | None, str]] = field(
        default_factory=list)
    redrivable: list[tuple[ExecutionEntry, tuple[str, Any]]] = field(default_factory=list)  # closed, not succeeded
    map_runs_interrupted: list[Any] = field(default_factory=list)


def build(state: records.Document) -> Loaded:
    """Stores holding everything in `state`; StateError when it is malformed (nothing changes then)."""
    try:
        return _build(state)
    except ApiError as error:  # a definition the parser refuses
        raise StateError(f"a stored definition is not valid: {error}") from None
    except checks.RecordError as error:
        raise StateError(f"a record is not valid: {error}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise StateError(f"the state is malformed ({type(error).__name__}: {error})") from None


def _build(state: records.Document) -> Loaded:
    checks.clock(state.get("clock"))
    definitions = records.Definitions()
    stores: dict[tuple[str, str], Store] = {}

    def store_for(arn: str) -> Store:
        region, account = arn.split(":")[3:5]
        return stores.setdefault((account, region), Store(account, region))

    for document in state["stateMachines"]:
        store_for(document["arn"]).state_machines[document["arn"]] = records.state_machine_from(document, definitions)
    for document in state["activities"]:
        store_for(document["arn"]).activities[document["arn"]] = records.activity_from(document)
    loaded = Loaded([])
    executions = sorted(state["executions"], key=lambda e: e["start"]["sequence"])
    for document in executions:
        start = document["start"]
        store = store_for(start["arn"])
        if start["stateMachineArn"].split("/")[0] not in store.state_machines:
            continue  # its state machine was deleted: it went with it
        entry, point, variables, token = records.execution_from(start, document["progress"], document["events"],
                                                                 definitions)
        store.add_execution(entry)
        if entry.execution.is_running:
            loaded.running.append((entry, point, variables, token, start["revisionType"]))
        elif point is not None and entry.execution.status != SUCCEEDED:
            loaded.redrivable.append((entry, point))
    for store in stores.values():
        store.continue_sequence(max((e.sequence for e in store.executions.values()), default=-1))
    for document in state["mapRuns"]:
        store = store_for(document["arn"])
        if document["executionArn"] in store.executions:
            map_run = records.map_run_from(document, store.executions)
            store.map_runs[map_run.arn] = map_run
            if map_run.status == RUNNING:
                loaded.map_runs_interrupted.append(map_run)
    loaded.stores = list(stores.values())
    return loaded


def install(loaded: Loaded, service: StepFunctionsService, engine: Engine) -> list[tuple[ExecutionEntry, str]]:
    """Put the stores in the service and set their running executions going again (see the module's
    rule); answers those executions, with the type of the state machine each runs."""
    now = engine.clock.now()
    for map_run in loaded.map_runs_interrupted:
        map_run.status, map_run.stop_date = ABORTED, now
    service.install(loaded.stores)
    for entry, point in loaded.redrivable:
        engine.adopt(entry.execution, point)
    for entry, point, variables, token, _ in loaded.running:
        execution = entry.execution
        if entry.map_run_arn is not None:
            engine.abandon(execution, INTERRUPTED_CAUSE)
        else:
            engine.resume(execution, point, variables, token)
    engine.barrier()  # each is waiting again (its token answerable) before anyone can call
    return [(entry, revision_type) for entry, _, _, _, revision_type in loaded.running]


def clock_document(state: records.Document) -> tuple[Any, str] | None:
    """(time, mode) the state's clock was at, if it says (checked by `build`)."""
    return checks.clock(state.get("clock"))

