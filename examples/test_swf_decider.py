"""An Amazon SWF decider and activity worker, unchanged from what runs against AWS, tested on the
emulator: the order is charged by an activity, then shipped a day later (a timer the clock skips)."""

import threading

DOMAIN = "shop"
ORDER = {"name": "order", "version": "1"}
CHARGE = {"name": "charge", "version": "1"}


def decide(events):
    """The decider's logic: the decisions for a history."""
    kinds = [event["eventType"] for event in events]
    if "TimerFired" in kinds:
        return [{"decisionType": "CompleteWorkflowExecution",
                 "completeWorkflowExecutionDecisionAttributes": {"result": "shipped"}}]
    if "ActivityTaskCompleted" in kinds:
        return [{"decisionType": "StartTimer",
                 "startTimerDecisionAttributes": {"timerId": "ship", "startToFireTimeout": str(24 * 3600)}}]
    return [{"decisionType": "ScheduleActivityTask",
             "scheduleActivityTaskDecisionAttributes": {"activityType": CHARGE, "activityId": "charge",
                                                         "input": events[0]["workflowExecutionStartedEventAttributes"]["input"]}}]


def run_decider(swf, done, polls=20):
    for _ in range(polls):
        task = swf.poll_for_decision_task(domain=DOMAIN, taskList={"name": "orders"})
        if task["taskToken"]:
            decisions = decide(task["events"])
            swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=decisions)
            if decisions[0]["decisionType"] == "CompleteWorkflowExecution":
                done.set()
                return


def run_worker(swf, polls=20):
    for _ in range(polls):
        task = swf.poll_for_activity_task(domain=DOMAIN, taskList={"name": "payments"})
        if task["taskToken"]:
            swf.respond_activity_task_completed(taskToken=task["taskToken"], result=f"charged {task['input']}")
            return


def test_an_order_is_charged_then_shipped_a_day_later(sfn_emulator):
    swf = sfn_emulator.client("swf", read_timeout=70)  # a long poll may take 60 s
    swf.register_domain(name=DOMAIN, workflowExecutionRetentionPeriodInDays="1")
    swf.register_workflow_type(domain=DOMAIN, **ORDER, defaultTaskList={"name": "orders"}, defaultChildPolicy="TERMINATE",
                               defaultExecutionStartToCloseTimeout=str(7 * 24 * 3600), defaultTaskStartToCloseTimeout="60")
    swf.register_activity_type(domain=DOMAIN, **CHARGE, defaultTaskList={"name": "payments"},
                               defaultTaskScheduleToCloseTimeout="300", defaultTaskScheduleToStartTimeout="300",
                               defaultTaskStartToCloseTimeout="300")
    run_id = swf.start_workflow_execution(domain=DOMAIN, workflowId="order-1", workflowType=ORDER, input="42 EUR")["runId"]

    done = threading.Event()
    decider = threading.Thread(target=run_decider, args=(swf, done))
    worker = threading.Thread(target=run_worker, args=(swf,))
    decider.start()
    worker.start()
    assert done.wait(60)
    decider.join(60)
    worker.join(60)

    events = swf.get_workflow_execution_history(domain=DOMAIN, execution={"workflowId": "order-1", "runId": run_id})["events"]
    completed = next(e for e in events if e["eventType"] == "ActivityTaskCompleted")
    assert completed["activityTaskCompletedEventAttributes"]["result"] == "charged 42 EUR"
    started = next(e for e in events if e["eventType"] == "TimerStarted")["eventTimestamp"]
    fired = next(e for e in events if e["eventType"] == "TimerFired")["eventTimestamp"]
    assert (fired - started).total_seconds() == 24 * 3600  # a day, to the millisecond, in no time
    assert events[-1]["eventType"] == "WorkflowExecutionCompleted"
