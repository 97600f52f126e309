"""Collects coverage from every execution an emulator finishes (Standard and Express; TestState
runs are not executions of a state machine and are left out).

Recording is cheap on the engine's thread: a finished execution is only queued; its history is
read when a report is asked for, or in batches once many are queued, so a busy emulator pays for
coverage in bulk. A Distributed Map's child executions (`Parent/Label` machines) count for the
parent's definition, whose item processor they ran.
"""

from __future__ import annotations

import json
import re
import threading
from typing import TYPE_CHECKING, Any

from sfn_emulator.engine.observers import EngineObserver

if TYPE_CHECKING:
    from sfn_emulator.coverage.model import CoverageReport, MachineCoverage
    from sfn_emulator.engine.execution import Execution

_BATCH = 1000


class CoverageRecorder(EngineObserver):
    """An observer of the engine's finished executions; `report()` gives the coverage so far."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[Execution] = []
        self._machines: dict[tuple[str, str], MachineCoverage] = {}
        self._definition_ids: dict[str, str] = {}  # by definition text: the executions of a machine share it

    def execution_finished(self, execution: Execution) -> None:
        with self._lock:
            self._pending.append(execution)
            if len(self._pending) >= _BATCH:
                self._drain()

    def report(self) -> CoverageReport:
        from sfn_emulator.coverage.model import CoverageReport

        with self._lock:
            self._drain()
            return CoverageReport(list(self._machines.values()))

    def machine(self, name: str, definition: str) -> MachineCoverage | None:
        """The coverage of one state machine definition, if any execution of it finished."""
        with self._lock:
            self._drain()
            return self._machines.get((name, definition_id(definition)))

    def json(self) -> dict[str, Any]:
        return self.report().to_json()

    def reset(self) -> None:
        with self._lock:
            self._pending.clear()
            self._machines.clear()
            self._definition_ids.clear()

    def _drain(self) -> None:
        # The graph code loads when a report is first asked for, not with every emulator.
        from sfn_emulator.coverage.model import MachineCoverage
        from sfn_emulator.dialects import graph_of
        from sfn_emulator.graphs.trace import trace

        pending, self._pending = self._pending, []
        for execution in pending:
            name = execution.state_machine_name.split("/", 1)[0]
            known = self._definition_ids.get(execution.definition)
            if known is None:
                known = self._definition_ids[execution.definition] = definition_id(execution.definition)
            key = (name, known)
            machine = self._machines.get(key)
            if machine is None:
                try:
                    graph = graph_of(execution.definition)
                except ValueError:  # not a JSON definition: nothing to measure
                    continue
                machine = self._machines[key] = MachineCoverage.of(name, execution.definition, key[1], graph)
            machine.add(trace(machine.graph, list(execution.history), execution.rules_taken))


# The partition, region and account of an ARN: where a resource lives, not what the workflow is.
_ARN_PLACE = re.compile(r"arn:aws[a-z-]*:([a-z0-9-]+):[a-z0-9-]*:\d{12}:")


def definition_id(definition: str) -> str:
    """A short digest of what a definition is: its content, not its formatting, nor the partition,
    region or account its ARNs name, so the same workflow deployed in several accounts (the pytest
    plugin's per-test accounts) or regions is one."""
    try:
        canonical = json.dumps(json.loads(definition), sort_keys=True, separators=(",", ":"))
    except ValueError:
        canonical = definition
    canonical = _ARN_PLACE.sub(r"arn:${Partition}:\1:${Region}:${AccountId}:", canonical)
    import hashlib

    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]
