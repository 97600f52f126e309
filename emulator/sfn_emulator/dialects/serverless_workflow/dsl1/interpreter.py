"""Runs a DSL 1.0 workflow as a generator of the engine's effects, writing Step Functions' history.

A task: `if` (false: skipped, its output its input), `input.from` (the transformed input, `$input`),
its body, `output.as` on its raw output, `export.as` on the transformed output (the new `$context`),
then its flow directive: `continue` (the next task), a task name of the same list, `exit` (leave
the enclosing list) or `end` (end the workflow). History: `<T>StateEntered`/`Exited` with T = Task
(call, run, emit, listen), Choice (switch), Wait (wait), Parallel (fork), Map (for) and Pass (set,
do, try, raise); calls are `TaskScheduled`/`Started`/`Succeeded`|`Failed` as in the draft.

Errors are the DSL's error objects `{type, status, title, detail, instance}`: an execution fails
with the error's `type` as its error and the object (JSON) as its cause.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any, Callable

from msgspec import Struct, field

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.json_text import compact_json
from sfn_emulator.asl.task_targets import parse_resource
from sfn_emulator.clock.virtual_clock import format_time
from sfn_emulator.dialects.functions import call_function
from sfn_emulator.dialects.serverless_workflow.dsl1 import expressions as x
from sfn_emulator.dialects.serverless_workflow.dsl1 import model as m
from sfn_emulator.dialects.serverless_workflow.dsl1.durations import seconds_of
from sfn_emulator.dialects.serverless_workflow.events import publish
from sfn_emulator.dialects.task_events import AWAIT_EVENT_TASK, function_task
from sfn_emulator.engine.cloudevents import EventMatch
from sfn_emulator.engine.effects import ENTER_STATE, AwaitEvent, Fork, Interpreter, Invoke, Sleep
from sfn_emulator.engine.frame import Frame, Run, to_json_text
from sfn_emulator.engine.states.processing import map_iteration
from sfn_emulator.engine.task_attempt import Attempt, task_attempt
from sfn_emulator.protocol.history_events import (
    TaskEvents,
    map_state_started,
    map_state_succeeded,
    parallel_state_started,
    parallel_state_succeeded,
    state_entered,
    state_exited,
)
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.outcomes import settled_result

JSON = Any
ERRORS = "https://serverlessworkflow.io/spec/1.0.0/errors/"
RUNTIME, COMMUNICATION = ERRORS + "runtime", ERRORS + "communication"
ENTERED = {"call": "Task", "run": "Task", "emit": "Task", "listen": "Task", "switch": "Choice", "wait": "Wait",
           "fork": "Parallel", "for": "Map", "set": "Pass", "do": "Pass", "try": "Pass", "raise": "Pass"}
UNSUPPORTED_CALLS = ("openapi", "asyncapi", "grpc", "mcp")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_HTTP = parse_resource("arn:aws:states:::http:invoke")


class _Flow(Exception):
    """`then: end` reached inside a list: the workflow ends with this output."""

    def __init__(self, output: JSON) -> None:
        self.output = output


class _Workflow(Struct):
    """One execution's view: the model, the run, and `$context` as tasks export it."""

    model: m.Workflow
    run: Run
    input: JSON
    context: JSON = field(default_factory=dict)

    def scope(self, **extra: JSON) -> dict[str, JSON]:
        execution = self.run.execution
        return {"context": self.context, "secrets": {}, "authorization": None,
                "workflow": {"id": execution.arn, "definition": self.model.definition, "input": self.input,
                             "startedAt": {"iso8601": format_time(execution.start_date)}},
                "runtime": {"name": "sfn-emulator", "metadata": {}}, **extra}


def run_workflow(run: Run) -> Interpreter:
    model: m.Workflow = run.execution.machine
    data = run.execution_context["Input"]
    workflow = _Workflow(model, run, data)
    frame = Frame(run, prev_event_id=run.execution.history[-1]["id"] if run.execution.history else 0)
    if model.input_from is not None:
        data = _transform(model.input_from, data, workflow.scope(input=data))
    try:
        output = yield from _run_list(workflow, model.tasks, data, frame, {})
    except _Flow as ended:
        output = ended.output
    if model.output_as is not None:
        output = _transform(model.output_as, output, workflow.scope(input=data, output=output))
    return output


def _run_list(workflow: _Workflow, tasks: tuple[m.Task, ...], data: JSON, frame: Frame, local: dict[str, JSON]) -> Interpreter:
    """The tasks in order as their flow directives say; the output of the last one run."""
    index = 0
    while 0 <= index < len(tasks):
        task = tasks[index]
        data, then = yield from _run_task(workflow, task, data, frame, local)
        if then == m.END:
            raise _Flow(data)
        if then == m.EXIT:
            break
        index = index + 1 if then in (None, m.CONTINUE) else next(i for i, t in enumerate(tasks) if t.name == then)
    return data


def _run_task(workflow: _Workflow, task: m.Task, raw: JSON, frame: Frame, local: dict[str, JSON]) -> Interpreter:
    yield ENTER_STATE
    kind = ENTERED[task.kind]
    frame.state_name, frame.entered_time, frame.retry_count = task.name, frame.run.now(), 0
    frame.entered_event_id = frame.emit(state_entered(kind, task.name, to_json_text(raw)))
    spec = task.spec
    scope = workflow.scope(**local, task={"name": task.name, "reference": task.reference, "definition": spec})
    if isinstance(spec.get("if"), str) and not x.truthy(x.evaluate(spec["if"], raw, {**scope, "input": raw})):
        output, then = raw, None
    else:
        data = _transform((spec.get("input") or {}).get("from"), raw, {**scope, "input": raw})
        scope["input"] = data
        result, then = yield from _body(workflow, task, data, frame, local, scope)
        output = _transform((spec.get("output") or {}).get("as"), result, scope)
        exported = (spec.get("export") or {}).get("as")
        if exported is not None:
            workflow.context = _transform(exported, output, {**scope, "output": output})
    frame.emit(state_exited(kind, task.name, to_json_text(output)))
    return output, then if then is not None else spec.get("then")


def _transform(how: JSON, data: JSON, scope: dict[str, JSON]) -> JSON:
    if how is None:
        return data
    return x.evaluate(how, data, scope) if isinstance(how, str) else x.evaluate_value(how, data, scope)


def _body(workflow: _Workflow, task: m.Task, data: JSON, frame: Frame, local: dict[str, JSON],
          scope: dict[str, JSON]) -> Interpreter:
    """The task's raw output and, for a switch, the directive its case chose."""
    spec = task.spec
    match task.kind:
        case "set":
            return _transform(spec["set"], data, scope), None
        case "do":
            return (yield from _run_list(workflow, task.tasks, data, frame, local)), None
        case "switch":
            return data, _switch(task, data, scope, frame)
        case "for":
            return (yield from _for(workflow, task, data, frame, local, scope)), None
        case "fork":
            return (yield from _fork(workflow, task, data, frame, local)), None
        case "try":
            return (yield from _try(workflow, task, data, frame, local)), None
        case "raise":
            error = spec["raise"]["error"]
            definition = workflow.model.errors[error] if isinstance(error, str) else error
            raise workflow_error({**x.evaluate_value(definition, data, scope), "instance": task.reference})
        case "wait":
            duration = spec["wait"]
            seconds = seconds_of(x.evaluate(duration, data, scope) if x.is_expression(duration) else duration)
            yield Sleep(frame.run.now() + timedelta(seconds=seconds))
            return data, None
        case "emit":
            return (yield from _emit(task, data, frame, scope)), None
        case "listen":
            return (yield from _listen(task, data, frame, scope)), None
        case "call":
            return (yield from _call(workflow, task, data, frame, scope)), None
    return (yield from _mapped(task, task.name, data, frame, f"'run' of a {'/'.join(spec['run'])}")), None


def _switch(task: m.Task, data: JSON, scope: dict[str, JSON], frame: Frame) -> str | None:
    """The first case whose `when` holds (a case without one always does), noted for coverage as
    the graph draws it (`Choices[i]`, `Default`); none: the task's own `then`."""
    for index, case in enumerate(task.spec["switch"]):
        body = next(iter(case.values()))
        if "when" not in body or x.truthy(x.evaluate(body["when"], data, scope)):
            rule = f"Choices[{index}]" if "when" in body else "Default"
            frame.run.execution.rules_taken.setdefault(frame.entered_event_id, []).append(rule)
            return body.get("then", m.CONTINUE)
    return None


def _for(workflow: _Workflow, task: m.Task, data: JSON, frame: Frame, local: dict[str, JSON],
         scope: dict[str, JSON]) -> Interpreter:
    """Each item in turn, each iteration's input the output of the one before."""
    loop = task.spec["for"]
    collection = x.evaluate(loop["in"], data, scope)
    items = list(collection.values()) if isinstance(collection, dict) else collection if isinstance(collection, list) else []
    frame.emit(map_state_started(len(items)))
    for index, item in enumerate(items):
        inner = {**local, loop.get("each", "item"): item, loop.get("at", "index"): index}
        if isinstance(task.spec.get("while"), str) and not x.truthy(x.evaluate(task.spec["while"], data, {**scope, **inner})):
            break
        data = yield from map_iteration(frame, task.name, index, _run_list(workflow, task.tasks, data, frame, inner))
    frame.emit(map_state_succeeded())
    return data


def _fork(workflow: _Workflow, task: m.Task, data: JSON, frame: Frame, local: dict[str, JSON]) -> Interpreter:
    """Every branch on the task's input; `compete`: the first branch to complete gives the output
    (the others are cancelled), else the array of the branches' outputs."""
    compete = bool(task.spec["fork"].get("compete", False))
    frame.emit(parallel_state_started())

    def runner(branch: m.Task) -> Callable[[], Interpreter]:
        def branch_run() -> Interpreter:
            child = frame.child(interleave=True)
            try:
                output, _ = yield from _run_task(workflow, branch, data, child, local)
            except _Flow as ended:
                output = ended.output
            return [output]

        return branch_run

    results = yield Fork([runner(branch) for branch in task.branches], interleave=True, needed=1 if compete else None)
    frame.emit(parallel_state_succeeded())
    outputs = [result[0] for result in results if result is not None]
    return outputs[0] if compete else outputs


def _try(workflow: _Workflow, task: m.Task, data: JSON, frame: Frame, local: dict[str, JSON]) -> Interpreter:
    catch = task.spec["catch"]
    variable = catch.get("as", "error")
    retry = catch.get("retry")
    if isinstance(retry, str):
        retry = ((workflow.model.definition.get("use") or {}).get("retries") or {})[retry]
    attempt = 0
    while True:
        try:
            return (yield from _run_list(workflow, task.tasks, data, frame, local))
        except StatesError as error:
            caught = error_object(error, task.reference)
            scope = workflow.scope(**local, **{variable: caught})
            if not _catches(catch, caught, data, scope):
                raise
            if isinstance(retry, dict) and _retries(retry, attempt, data, scope):
                frame.retry_count = attempt = attempt + 1
                delay = _retry_delay(retry, attempt)
                if delay > 0:
                    yield Sleep(frame.run.now() + timedelta(seconds=delay))
                continue
            if not task.handler:
                return data
            return (yield from _run_list(workflow, task.handler, data, frame, {**local, variable: caught}))


def _catches(catch: dict[str, JSON], error: dict[str, JSON], data: JSON, scope: dict[str, JSON]) -> bool:
    wanted = ((catch.get("errors") or {}).get("with")) or {}
    if any(error.get(key) != value for key, value in wanted.items()):
        return False
    if isinstance(catch.get("when"), str) and not x.truthy(x.evaluate(catch["when"], data, scope)):
        return False
    return not (isinstance(catch.get("exceptWhen"), str) and x.truthy(x.evaluate(catch["exceptWhen"], data, scope)))


def _retries(retry: dict[str, JSON], attempt: int, data: JSON, scope: dict[str, JSON]) -> bool:
    count = ((retry.get("limit") or {}).get("attempt") or {}).get("count")
    if count is not None and attempt >= count:
        return False
    if isinstance(retry.get("when"), str) and not x.truthy(x.evaluate(retry["when"], data, scope)):
        return False
    return not (isinstance(retry.get("exceptWhen"), str) and x.truthy(x.evaluate(retry["exceptWhen"], data, scope)))


def _retry_delay(retry: dict[str, JSON], attempt: int) -> float:
    """The delay before retry `attempt` (1 for the first): constant, linear (times the attempt) or
    exponential (times 2 to the attempt before it)."""
    delay = seconds_of(retry["delay"]) if retry.get("delay") is not None else 0.0
    backoff = retry.get("backoff") or {}
    if "linear" in backoff:
        return delay * attempt
    if "exponential" in backoff:
        return delay * 2 ** (attempt - 1)
    return delay


def _emit(task: m.Task, data: JSON, frame: Frame, scope: dict[str, JSON]) -> Interpreter:
    """The event's attributes (expressions evaluated), with `id`, `time` and `specversion` added
    where not given; it is published and is the task's output."""
    run = frame.run
    attributes = x.evaluate_value(task.spec["emit"]["event"]["with"], data, scope)
    event = {"specversion": "1.0", "id": run.randomness.uuid(), "time": format_time(run.now()), **attributes}
    yield from publish(event, frame)
    return event


def _listen(task: m.Task, data: JSON, frame: Frame, scope: dict[str, JSON]) -> Interpreter:
    """Wait for `one` event, `any` of the filters or one for `all`; the output is the array of
    the consumed events' data (`read: envelope`: the events themselves)."""
    to = task.spec["listen"]["to"]
    mode = next(key for key in ("one", "any", "all") if key in to)
    filters = [to["one"]] if mode == "one" else list(to[mode] or ())
    matches = tuple(_event_match(x.evaluate_value(f.get("with") or {}, data, scope)) for f in filters)

    def receive(attempt: Attempt) -> Interpreter:
        received = yield AwaitEvent(matches, mode == "all", None)
        return [received[index] for index in sorted(received)]

    scheduled = AWAIT_EVENT_TASK.scheduled(frame.run.execution.region, to_json_text(task.spec["listen"]))
    events = yield from task_attempt(frame, AWAIT_EVENT_TASK, scheduled, receive)
    read = task.spec["listen"].get("read", "data")
    return events if read in ("envelope", "raw") else [event.get("data") for event in events]


def _event_match(attributes: dict[str, JSON]) -> EventMatch:
    others = tuple((key, value) for key, value in attributes.items() if key not in ("type", "source"))
    return EventMatch(attributes.get("type", ""), attributes.get("source"), others)


def _call(workflow: _Workflow, task: m.Task, data: JSON, frame: Frame, scope: dict[str, JSON]) -> Interpreter:
    call = task.spec["call"]
    arguments = x.evaluate_value(task.spec.get("with") or {}, data, scope)
    if call == "http":
        return (yield from _http(task, arguments, data, frame))
    if call in UNSUPPORTED_CALLS:
        return (yield from _mapped(task, task.name, arguments, frame, f"'{call}' call"))
    if call in workflow.model.functions:  # a function of use.functions: a task run on the arguments
        spec = dict(workflow.model.functions[call])
        defined = m.Task(call, f"/use/functions/{call}", m.task_kind(spec) or "set", spec)
        result, _ = yield from _body(workflow, defined, arguments, frame, {}, workflow.scope(input=arguments))
        return result
    return (yield from _mapped(task, call, arguments, frame, f"call of the function '{call}'"))


def _function(name: str, resource: str | None, task: m.Task, payload: JSON, frame: Frame) -> Interpreter:
    """A call through the task-resource chain (a mock test case named after the task, a callable
    under the function's name), written as the draft's function tasks."""
    run = frame.run
    events = function_task(name)
    return (yield from task_attempt(
        frame, events, events.scheduled(run.execution.region, to_json_text(payload)),
        lambda _attempt: call_function(name, resource, payload, run=run, state_name=task.name, attempt=frame.retry_count)))


def _mapped(task: m.Task, name: str, payload: JSON, frame: Frame, what: str) -> Interpreter:
    """What the emulator cannot perform itself runs only when a mock test case (named after the
    task) or a callable (registered under `name`) serves it; otherwise it fails naming the task."""
    try:
        return (yield from _function(name, None, task, payload, frame))
    except StatesError as error:
        if error.error != names.RUNTIME or "cannot call the function" not in (error.cause or ""):
            raise
        raise workflow_error({"type": RUNTIME, "status": 501, "title": "Not supported by sfn-emulator",
                              "detail": f"sfn-emulator cannot perform the {what} of task '{task.name}' "
                                        f"({task.reference}): map a mock test case named '{task.name}' or a Python "
                                        f"callable named '{name}' to it", "instance": task.reference}) from None


def _http(task: m.Task, arguments: dict[str, JSON], data: JSON, frame: Frame) -> Interpreter:
    """An HTTP call as an HTTP Task (`arn:aws:states:::http:invoke`); `output`: `content` (the
    default: the body, parsed when JSON), `response` or `raw`."""
    endpoint = arguments["endpoint"]
    uri = endpoint if isinstance(endpoint, str) else endpoint["uri"]
    if isinstance(data, dict):  # the shorthand: `{name}` is the input's top-level member
        uri = _PLACEHOLDER.sub(lambda found: str(data.get(found.group(1), found.group(0))), uri)
    payload: dict[str, JSON] = {"Method": str(arguments["method"]).upper(), "ApiEndpoint": uri}
    headers = {**(arguments.get("headers") or {}), **_authorization(endpoint, task)}
    if headers:
        payload["Headers"] = headers
    if arguments.get("query"):
        payload["QueryParameters"] = arguments["query"]
    if arguments.get("body") is not None:
        payload["RequestBody"] = arguments["body"]
    run = frame.run
    request = TaskRequest(resource=_HTTP, payload=payload, execution_arn=run.execution.arn,
                          state_machine_name=run.execution.state_machine_name, state_name=task.name,
                          account=run.execution.account, region=run.execution.region, attempt=frame.retry_count,
                          now=run.now(), test_case=run.execution.test_case, seed=run.request_seed(),
                          with_connection=False)
    events = TaskEvents(_HTTP.resource_type, _HTTP.resource)

    def invoke(attempt: Attempt) -> Interpreter:
        return settled_result((yield Invoke(request)))

    try:
        result = yield from task_attempt(frame, events, events.scheduled(run.execution.region, to_json_text(payload)), invoke)
    except StatesError as error:
        raise workflow_error(_http_error(error, task.reference)) from None
    content = result.get("ResponseBody")
    mode = arguments.get("output", "content")
    if mode == "response":
        return {"request": {"method": payload["Method"], "uri": uri, "headers": payload.get("Headers", {})},
                "statusCode": result.get("StatusCode"), "headers": result.get("Headers"), "content": content}
    if mode == "raw":
        import base64

        text = content if isinstance(content, str) else compact_json(content)
        return base64.b64encode(text.encode()).decode()
    return content


def _authorization(endpoint: JSON, task: m.Task) -> dict[str, str]:
    """The Authorization header of an endpoint's `basic` or `bearer` authentication; the others
    (OAuth2, OpenID Connect, digest, certificates, a `use` reference) are not performed."""
    policy = endpoint.get("authentication") if isinstance(endpoint, dict) else None
    if not policy:
        return {}
    if isinstance(policy.get("basic"), dict):
        import base64

        pair = f"{policy['basic'].get('username', '')}:{policy['basic'].get('password', '')}"
        return {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}
    if isinstance(policy.get("bearer"), dict):
        return {"Authorization": f"Bearer {policy['bearer'].get('token', '')}"}
    raise workflow_error({"type": RUNTIME, "status": 501, "title": "Not supported by sfn-emulator",
                          "detail": f"sfn-emulator cannot perform the authentication {sorted(policy)} of task "
                                    f"'{task.name}' ({task.reference})", "instance": task.reference})


def _http_error(error: StatesError, instance: str) -> dict[str, JSON]:
    """An HTTP Task failure as the DSL's communication error (the answer's status)."""
    status = int(error.error.rsplit(".", 1)[1]) if error.error.startswith("States.Http.StatusCode.") else 503
    return {"type": COMMUNICATION, "status": status, "title": error.error, "detail": error.cause, "instance": instance}


def workflow_error(error: dict[str, JSON]) -> StatesError:
    """A DSL error as the execution's failure: its `type` the error, the object the cause."""
    return StatesError(str(error.get("type")), compact_json(error))


def error_object(error: StatesError, instance: str) -> dict[str, JSON]:
    """The DSL error object of a failure: the object a `raise` (or a call) gave, else a runtime
    error naming the failure (a callable's exception, a `States.*` error)."""
    try:
        described = json.loads(error.cause or "")
    except ValueError:
        described = None
    if isinstance(described, dict) and described.get("type") == error.error and "status" in described:
        return described
    return {"type": RUNTIME, "status": 500, "title": error.error, "detail": error.cause, "instance": instance}
