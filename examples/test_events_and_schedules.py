"""Events and schedules: a workflow's status changes reach a queue through an EventBridge rule, and a
nightly schedule's week of runs takes one move of the clock."""

import json
from datetime import timedelta, timezone

REPORT = {"StartAt": "Report", "States": {"Report": {"Type": "Pass", "Result": "done", "End": True}}}


def test_a_finished_report_is_announced_on_a_queue(sfn_emulator):
    sqs, events = sfn_emulator.client("sqs"), sfn_emulator.client("events")
    queue_url = sqs.create_queue(QueueName="reports")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events.put_rule(Name="report-done",
                    EventPattern=json.dumps({"source": ["aws.states"], "detail": {"status": ["SUCCEEDED"]}}))
    events.put_targets(Rule="report-done", Targets=[{"Id": "queue", "Arn": queue_arn, "InputPath": "$.detail.output"}])
    sfn_emulator.run(REPORT).assert_succeeded(output="done")
    [message] = sqs.receive_message(QueueUrl=queue_url)["Messages"]
    assert json.loads(message["Body"]) == '"done"'


def test_a_nightly_schedule_runs_seven_times_a_week(sfn_emulator, sfn_client):
    sfn_emulator.clock.mode = "manual"  # put back to auto after the test
    machine_arn = sfn_emulator.create_state_machine(REPORT, name="nightly-report")
    events = sfn_emulator.client("events")
    events.put_rule(Name="nightly", ScheduleExpression="cron(0 2 * * ? *)")
    events.put_targets(Rule="nightly", Targets=[{"Id": "report", "Arn": machine_arn}])
    sfn_emulator.clock.advance(timedelta(days=7))
    sfn_emulator.clock.run_until_idle()
    runs = sfn_client.list_executions(stateMachineArn=machine_arn)["executions"]
    assert len(runs) == 7
    assert {(run["startDate"].astimezone(timezone.utc).hour, run["status"]) for run in runs} == {(2, "SUCCEEDED")}
