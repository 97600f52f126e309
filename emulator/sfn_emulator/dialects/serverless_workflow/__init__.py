"""CNCF Serverless Workflow (the draft in the project's design documents) as a dialect; the later
drafts 0.6-0.8 are `v0x`, DSL 1.0 is `dsl1`.

Recognition: a JSON or YAML object without ASL's `States`, whose `states` is an array holding at
least one object with a `type` member (the draft's states all have one; ASL's do not sit in an
array, SM4C's have none), and which is not a later draft's (`v0x.is_later_draft`). The tag `sfn-emulator:dialect` = `serverless-workflow` forces it.

History, in Step Functions' event shapes:
- the execution: `ExecutionStarted` ... `ExecutionSucceeded`/`Failed`/`TimedOut`/`Aborted`;
- a state: `<T>StateEntered` / `<T>StateExited`, where T is Task (operation, event, callback,
  subflow), Choice (switch), Wait (delay), Parallel (parallel), Map (foreach), Pass (inject);
- a function call: `TaskScheduled` (resourceType `function`, resource the function's name,
  parameters the payload), `TaskStarted`, `TaskSucceeded` / `TaskFailed` / `TaskTimedOut`;
- waiting for events (event states, event switches, callbacks, `resultEventRef`): the same task
  events with resourceType `events`, resource `awaitEvent` (the consumed events as output);
  producing one (`produceEvent`, `triggerEventRef`): resource `produceEvent`;
- a subflow: Step Functions' `states:startExecution.sync:2` task events (`startExecution` when
  `waitForCompletion` is false), the sub-workflow being a nested execution;
- parallel: `ParallelStateStarted` / `ParallelStateSucceeded`; foreach: `MapStateStarted`,
  `MapIterationStarted`/`Succeeded`/`Failed` per element, `MapStateSucceeded`.
"""

from __future__ import annotations

from typing import Any, Mapping

from sfn_emulator.dialects.serverless_workflow.lazy_dialect import LazyWorkflowDialect

NAME = "serverless-workflow"


class ServerlessWorkflowDialect(LazyWorkflowDialect, frozen=True):
    def recognises(self, document: Any) -> bool:
        if not isinstance(document, Mapping) or "States" in document or not isinstance(document.get("states"), list):
            return False
        from sfn_emulator.dialects.serverless_workflow.v0x import is_later_draft

        return not is_later_draft(document) and any(isinstance(state, Mapping) and "type" in state
                                                    for state in document["states"])


SERVERLESS_WORKFLOW = ServerlessWorkflowDialect(NAME, "sfn_emulator.dialects.serverless_workflow.parser",
                                                "sfn_emulator.dialects.serverless_workflow.model")
