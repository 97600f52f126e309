"""What PollForDecisionTask answers: the task, with a page of the execution's history (the whole
history up to the task's DecisionTaskStarted event, or from the previous decision task's start with
`startAtPreviousStartedEvent`), and the next pages of that history for its `nextPageToken`."""

from __future__ import annotations

from typing import Any

from sfn_emulator.swf.execution import DecisionTask, WorkflowExecution
from sfn_emulator.swf.paging import invalid_token, page, token_context


def decision_task_answer(execution: WorkflowExecution, decision: DecisionTask, params: dict[str, Any]) -> dict[str, Any]:
    events = execution.history.events[:decision.started_event_id]
    previous = _previous_started(events, decision.started_event_id)
    if params.get("startAtPreviousStartedEvent") and previous:
        since = events[previous - 1]["eventTimestamp"]
        events = [event for event in events if event["eventTimestamp"] >= since]
    chunk, token = page(events, {**params, "nextPageToken": None}, context=decision.token or "")
    answer: dict[str, Any] = {"taskToken": decision.token, "startedEventId": decision.started_event_id,
                              "workflowExecution": execution.reference, "workflowType": execution.workflow_type,
                              "events": chunk, "previousStartedEventId": previous}
    if token is not None:
        answer["nextPageToken"] = token
    return answer


def decision_page(tokens: dict[str, tuple[WorkflowExecution, Any]], params: dict[str, Any]) -> dict[str, Any]:
    """A later page of the history of a decision task already handed out."""
    found = tokens.get(token_context(params["nextPageToken"]))
    if found is None or not isinstance(found[1], DecisionTask):
        raise invalid_token()
    execution, decision = found
    events = execution.history.events[:decision.started_event_id]
    chunk, token = page(events, params, context=decision.token or "")
    answer = {"taskToken": decision.token, "startedEventId": decision.started_event_id,
              "workflowExecution": execution.reference, "workflowType": execution.workflow_type, "events": chunk,
              "previousStartedEventId": _previous_started(events, decision.started_event_id)}
    if token is not None:
        answer["nextPageToken"] = token
    return answer


def _previous_started(events: list[dict[str, Any]], started_event_id: int) -> int:
    """The id of the DecisionTaskStarted event before this task's own, 0 if none."""
    for event in reversed(events):
        if event["eventType"] == "DecisionTaskStarted" and event["eventId"] < started_event_id:
            return event["eventId"]
    return 0
