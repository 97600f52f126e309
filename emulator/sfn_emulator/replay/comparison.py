"""The recorded steps against the replayed ones, place by place: where they first part, and why.

Steps are compared per place (a Parallel branch or a Map iteration runs in its own order, whatever
the interleaving), and the first divergence is the one earliest in the recording. Values compare as
JSON; a replayed value that is one of the replay's own identifiers (its task tokens, its execution
ARN) equals whatever string the recording has there, since the recording's were made elsewhere.
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from msgspec import Struct, structs

from sfn_emulator.protocol.json_diff import json_differences, json_equal
from sfn_emulator.replay.recording import Place, Step

JSON = Any


class Divergence(Struct, frozen=True):
    """Where the replay first did something else than the recording."""

    event_id: int  # the recorded event where it happens (the last one of its place when the replay did more)
    replay_event_id: int | None  # the replayed event where it happens (None when the replay did less)
    state: str | None  # the state whose behaviour differs: for another path, the state that chose it
    kind: str  # path, input, parameters, output, map length, end
    recorded: JSON
    replayed: JSON
    diff: list[str]
    place: list[list[Any]]
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"eventId": self.event_id, "replayEventId": self.replay_event_id, "state": self.state,
                "kind": self.kind, "recorded": self.recorded, "replayed": self.replayed, "diff": self.diff,
                "place": self.place, "message": self.message}


class StepComparison(Struct, frozen=True):
    place: Place
    recorded: Step | None
    replayed: Step | None
    same: bool

    def to_json(self) -> dict[str, Any]:
        return {"place": [list(step) for step in self.place], "same": self.same,
                "recorded": structs.asdict(self.recorded) if self.recorded else None,
                "replayed": structs.asdict(self.replayed) if self.replayed else None}


def compare(recorded: dict[Place, list[Step]], replayed: dict[Place, list[Step]],
            own_identifiers: Set[str] = frozenset()) -> tuple[list[StepComparison], Divergence | None]:
    """Every step side by side (in the recording's order, the replay's extra steps after their place's),
    and the first divergence, or None when both did the same."""
    comparisons: list[StepComparison] = []
    divergences: list[Divergence] = []
    for place in list(recorded) + [place for place in replayed if place not in recorded]:
        ours, theirs = recorded.get(place, []), replayed.get(place, [])
        diverged = False
        for index in range(max(len(ours), len(theirs))):
            old = ours[index] if index < len(ours) else None
            new = theirs[index] if index < len(theirs) else None
            same = old is not None and new is not None and _same(old, new, own_identifiers)
            comparisons.append(StepComparison(place, old, new, same))
            if not same and not diverged:  # what follows a place's first divergence follows from it
                divergences.append(_divergence(place, ours, theirs, index, own_identifiers))
                diverged = True
    first = min(divergences, key=lambda divergence: divergence.event_id, default=None)
    comparisons.sort(key=lambda comparison: comparison.recorded.event_id if comparison.recorded
                     else comparison.replayed.event_id if comparison.replayed else 0)
    return comparisons, first


def _same(old: Step, new: Step, own_identifiers: Set[str]) -> bool:
    return (old.kind, old.state, old.detail) == (new.kind, new.state, new.detail) \
        and same_value(new.value, old.value, own_identifiers)


def same_value(new: JSON, old: JSON, own_identifiers: Set[str]) -> bool:
    """Is the replayed value `new` the recorded `old`, the replay's own identifiers aside?"""
    return json_equal(_as_recorded(new, old, own_identifiers), old)


def _as_recorded(new: JSON, old: JSON, own_identifiers: Set[str]) -> JSON:
    """`new` with the replay's own identifiers replaced by the recording's strings at the same place."""
    if isinstance(new, str) and new in own_identifiers and isinstance(old, str):
        return old
    if isinstance(new, dict) and isinstance(old, dict):
        return {key: _as_recorded(value, old.get(key), own_identifiers) for key, value in new.items()}
    if isinstance(new, list) and isinstance(old, list):
        return [_as_recorded(value, old[index] if index < len(old) else None, own_identifiers)
                for index, value in enumerate(new)]
    return new


def _place_json(place: Place) -> list[list[Any]]:
    return [list(step) for step in place]


def _divergence(place: Place, ours: list[Step], theirs: list[Step], index: int, own_identifiers: Set[str]) -> Divergence:
    old = ours[index] if index < len(ours) else None
    new = theirs[index] if index < len(theirs) else None
    before = ours[index - 1] if 0 < index <= len(ours) else None
    event_id = old.event_id if old is not None else (ours[-1].event_id if ours else new.event_id if new else 0)
    where = "".join(f" in {name} {'iteration' if isinstance(key, int) else 'branch'} {key}" for name, key in place)
    if old is not None and new is not None and (old.kind, old.state) == (new.kind, new.state) and old.detail == new.detail:
        kind = {"entered": "input", "scheduled": "parameters", "exited": "output", "map": "map length",
                "end": "end"}[old.kind]
        replayed = _as_recorded(new.value, old.value, own_identifiers)
        diff = json_differences(replayed, old.value)
        subject = f"state {old.state!r}" if old.state else "the execution"
        message = f"the {kind} of {subject} differs{where} (recorded event {old.event_id}, replayed event {new.event_id})"
        return Divergence(old.event_id, new.event_id, old.state or None, kind, old.value, replayed, diff,
                          _place_json(place), message + ":\n" + "\n".join(f"  {line}" for line in diff))
    chooser = before.state if before is not None and before.state else None
    if old is not None and new is not None and old.kind == "end" and new.kind == "end":
        chooser = None
    recorded, replayed = _describe(old), _describe(new)
    by = f" after state {chooser!r}" if chooser else ""
    message = (f"the path differs{where}{by} (recorded event {event_id}): the recording {recorded['did']}, "
               f"the replay {replayed['did']}")
    diff = json_differences(replayed, recorded)
    return Divergence(event_id, new.event_id if new is not None else None, chooser, "path", recorded, replayed, diff,
                      _place_json(place), message)


def _describe(step: Step | None) -> dict[str, Any]:
    if step is None:
        return {"did": "did nothing more there"}
    what = {"entered": f"entered state {step.state!r}", "exited": f"left state {step.state!r}",
            "scheduled": f"called {step.detail} in state {step.state!r}",
            "map": f"started Map {step.state!r} with {step.value} iterations",
            "end": f"ended ({step.detail})"}[step.kind]
    return {"did": what, "step": step.kind, "state": step.state or None, "value": step.value}
