"""The SWF control plane over HTTP: domains, types, executions, tags, task counts, with AWS's
faults and the model's validation messages; accounts and regions are walls, as for Step Functions."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from helpers.swf_workers import new_domain, swf_client

WF = {"name": "wf", "version": "1"}


def _fault(call: Any, **params: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as raised:
        call(**params)
    error = raised.value.response["Error"]
    return error["Code"], error.get("Message", "")


def test_domain_lifecycle_and_faults(swf: Any) -> None:
    name = new_domain()
    swf.register_domain(name=name, description="mine", workflowExecutionRetentionPeriodInDays="3",
                        tags=[{"key": "team", "value": "a"}])
    described = swf.describe_domain(name=name)
    assert described["domainInfo"]["status"] == "REGISTERED" and described["domainInfo"]["description"] == "mine"
    assert described["domainInfo"]["arn"].endswith(f":swf:us-east-1:123456789012:/domain/{name}")
    assert described["configuration"] == {"workflowExecutionRetentionPeriodInDays": "3"}
    assert _fault(swf.register_domain, name=name, workflowExecutionRetentionPeriodInDays="1") == ("DomainAlreadyExistsFault", name)
    swf.deprecate_domain(name=name)
    assert _fault(swf.deprecate_domain, name=name) == ("DomainDeprecatedFault", name)
    assert name in [info["name"] for info in swf.list_domains(registrationStatus="DEPRECATED")["domainInfos"]]
    assert _fault(swf.start_workflow_execution, domain=name, workflowId="w", workflowType=WF)[0] == "UnknownResourceFault"
    swf.undeprecate_domain(name=name)
    assert _fault(swf.undeprecate_domain, name=name) == ("DomainAlreadyExistsFault", name)
    assert _fault(swf.describe_domain, name="nowhere-at-all") == ("UnknownResourceFault", "Unknown domain: nowhere-at-all")


def test_tags_of_a_domain(swf: Any, domain: str) -> None:
    arn = swf.describe_domain(name=domain)["domainInfo"]["arn"]
    swf.tag_resource(resourceArn=arn, tags=[{"key": "a", "value": "1"}, {"key": "b"}])
    swf.untag_resource(resourceArn=arn, tagKeys=["a"])
    assert swf.list_tags_for_resource(resourceArn=arn)["tags"] == [{"key": "b", "value": ""}]
    assert _fault(swf.list_tags_for_resource, resourceArn=arn + "x")[0] == "UnknownResourceFault"


def test_the_model_validates_requests_with_corals_messages(emulator_server: Any) -> None:
    unchecked = swf_client(emulator_server.endpoint_url, parameter_validation=False)
    code, message = _fault(unchecked.register_domain, name="", workflowExecutionRetentionPeriodInDays="1")
    assert code == "ValidationException"
    assert message == ("1 validation error detected: Value '' at 'name' failed to satisfy constraint: "
                       "Member must have length greater than or equal to 1")


@pytest.mark.parametrize(("kind", "member"), [("workflow", "workflowType"), ("activity", "activityType")])
def test_type_lifecycle_paging_and_faults(swf: Any, domain: str, kind: str, member: str) -> None:
    register = getattr(swf, f"register_{kind}_type")
    for version in ("a", "b", "c"):
        register(domain=domain, name="paged", version=version, description=f"v{version}")
    label = f"{member[0].upper()}{member[1:]}=[name=paged, version=a]"
    assert _fault(register, domain=domain, name="paged", version="a") == ("TypeAlreadyExistsFault", label)
    listing = getattr(swf, f"list_{kind}_types")
    first = listing(domain=domain, name="paged", registrationStatus="REGISTERED", maximumPageSize=2)
    rest = listing(domain=domain, name="paged", registrationStatus="REGISTERED", maximumPageSize=2,
                   nextPageToken=first["nextPageToken"])
    assert [info[member]["version"] for info in first["typeInfos"] + rest["typeInfos"]] == ["a", "b", "c"]
    assert "nextPageToken" not in rest
    backwards = listing(domain=domain, name="paged", registrationStatus="REGISTERED", reverseOrder=True)
    assert [info[member]["version"] for info in backwards["typeInfos"]] == ["c", "b", "a"]
    reference = {member: {"name": "paged", "version": "a"}}
    assert _fault(getattr(swf, f"delete_{kind}_type"), domain=domain, **reference) == ("TypeNotDeprecatedFault", label)
    getattr(swf, f"deprecate_{kind}_type")(domain=domain, **reference)
    assert _fault(getattr(swf, f"deprecate_{kind}_type"), domain=domain, **reference) == ("TypeDeprecatedFault", label)
    described = getattr(swf, f"describe_{kind}_type")(domain=domain, **reference)
    assert described["typeInfo"]["status"] == "DEPRECATED" and "deprecationDate" in described["typeInfo"]
    getattr(swf, f"undeprecate_{kind}_type")(domain=domain, **reference)
    assert _fault(getattr(swf, f"undeprecate_{kind}_type"), domain=domain, **reference) == ("TypeAlreadyExistsFault", label)
    getattr(swf, f"deprecate_{kind}_type")(domain=domain, **reference)
    getattr(swf, f"delete_{kind}_type")(domain=domain, **reference)
    assert _fault(getattr(swf, f"describe_{kind}_type"), domain=domain, **reference) == ("UnknownResourceFault", f"Unknown type: {label}")


def test_describe_a_type_answers_its_defaults(swf: Any, domain: str) -> None:
    described = swf.describe_activity_type(domain=domain, activityType={"name": "work", "version": "1"})
    assert described["configuration"] == {"defaultTaskList": {"name": "work"}, "defaultTaskScheduleToCloseTimeout": "3600",
                                          "defaultTaskScheduleToStartTimeout": "3600", "defaultTaskStartToCloseTimeout": "3600"}


def test_start_workflow_execution_faults(swf: Any, domain: str) -> None:
    swf.register_workflow_type(domain=domain, name="bare", version="1")
    assert _fault(swf.start_workflow_execution, domain=domain, workflowId="w", workflowType={"name": "bare", "version": "1"}) == (
        "DefaultUndefinedFault", "executionStartToCloseTimeout")
    assert _fault(swf.start_workflow_execution, domain=domain, workflowId="w", workflowType={"name": "nope", "version": "1"}) == (
        "UnknownResourceFault", "Unknown type: WorkflowType=[name=nope, version=1]")
    swf.start_workflow_execution(domain=domain, workflowId="w", workflowType=WF)
    assert _fault(swf.start_workflow_execution, domain=domain, workflowId="w", workflowType=WF)[0] == "WorkflowExecutionAlreadyStartedFault"
    swf.deprecate_workflow_type(domain=domain, workflowType=WF)
    assert _fault(swf.start_workflow_execution, domain=domain, workflowId="w2", workflowType=WF) == (
        "TypeDeprecatedFault", "WorkflowType=[name=wf, version=1]")


def test_list_and_count_executions_with_every_filter(swf: Any, domain: str) -> None:
    runs = {workflow_id: swf.start_workflow_execution(domain=domain, workflowId=workflow_id, workflowType=WF, tagList=tags)["runId"]
            for workflow_id, tags in (("one", ["red"]), ("two", ["blue"]), ("three", ["red"]))}
    swf.terminate_workflow_execution(domain=domain, workflowId="three", reason="done")
    since = {"oldestDate": 0}

    def open_ids(**filters: Any) -> list[str]:
        infos = swf.list_open_workflow_executions(domain=domain, startTimeFilter=since, **filters)["executionInfos"]
        assert swf.count_open_workflow_executions(domain=domain, startTimeFilter=since, **filters)["count"] == len(infos)
        return sorted(info["execution"]["workflowId"] for info in infos)

    assert open_ids() == ["one", "two"]
    assert open_ids(tagFilter={"tag": "red"}) == ["one"]
    assert open_ids(executionFilter={"workflowId": "two"}) == ["two"]
    assert open_ids(typeFilter={"name": "wf"}) == ["one", "two"]
    assert open_ids(typeFilter={"name": "wf", "version": "2"}) == []
    closed = swf.list_closed_workflow_executions(domain=domain, startTimeFilter=since, closeStatusFilter={"status": "TERMINATED"})
    assert [info["execution"] for info in closed["executionInfos"]] == [{"workflowId": "three", "runId": runs["three"]}]
    assert closed["executionInfos"][0]["closeStatus"] == "TERMINATED"
    assert swf.count_closed_workflow_executions(domain=domain, closeTimeFilter=since)["count"] == 1
    code, _ = _fault(swf.list_open_workflow_executions, domain=domain, startTimeFilter=since,
                     tagFilter={"tag": "red"}, executionFilter={"workflowId": "one"})
    assert code == "ValidationException"
    pages = swf.list_open_workflow_executions(domain=domain, startTimeFilter=since, maximumPageSize=1)
    assert len(pages["executionInfos"]) == 1 and "nextPageToken" in pages


def test_signal_cancel_request_terminate_and_describe(swf: Any, domain: str) -> None:
    run_id = swf.start_workflow_execution(domain=domain, workflowId="w", workflowType=WF, input="in")["runId"]
    swf.signal_workflow_execution(domain=domain, workflowId="w", signalName="go", input="now")
    swf.request_cancel_workflow_execution(domain=domain, workflowId="w")
    described = swf.describe_workflow_execution(domain=domain, execution={"workflowId": "w", "runId": run_id})
    assert described["executionInfo"]["cancelRequested"] is True
    assert described["openCounts"] == {"openActivityTasks": 0, "openDecisionTasks": 1, "openTimers": 0,
                                       "openChildWorkflowExecutions": 0, "openLambdaFunctions": 0}
    assert described["executionConfiguration"] == {"taskStartToCloseTimeout": "600", "executionStartToCloseTimeout": "31536000",
                                                   "taskList": {"name": "decisions"}, "childPolicy": "TERMINATE"}
    swf.terminate_workflow_execution(domain=domain, workflowId="w", reason="r", details="d", childPolicy="ABANDON")
    events = swf.get_workflow_execution_history(domain=domain, execution={"workflowId": "w", "runId": run_id})["events"]
    assert [event["eventType"] for event in events] == ["WorkflowExecutionStarted", "DecisionTaskScheduled",
                                                        "WorkflowExecutionSignaled", "WorkflowExecutionCancelRequested",
                                                        "WorkflowExecutionTerminated"]
    assert events[2]["workflowExecutionSignaledEventAttributes"] == {"signalName": "go", "input": "now",
                                                                      "externalInitiatedEventId": 0}
    assert events[-1]["workflowExecutionTerminatedEventAttributes"] == {
        "reason": "r", "details": "d", "childPolicy": "ABANDON", "cause": "OPERATOR_INITIATED"}
    assert _fault(swf.signal_workflow_execution, domain=domain, workflowId="w", signalName="late") == (
        "UnknownResourceFault", "Unknown execution, workflowId = w")


def test_pending_task_counts(swf: Any, domain: str) -> None:
    for workflow_id in ("a", "b"):
        swf.start_workflow_execution(domain=domain, workflowId=workflow_id, workflowType=WF)
    assert swf.count_pending_decision_tasks(domain=domain, taskList={"name": "decisions"})["count"] == 2
    assert swf.count_pending_activity_tasks(domain=domain, taskList={"name": "work"})["count"] == 0


def test_history_paging_and_reverse_order(swf: Any, domain: str) -> None:
    run_id = swf.start_workflow_execution(domain=domain, workflowId="w", workflowType=WF)["runId"]
    for index in range(5):
        swf.signal_workflow_execution(domain=domain, workflowId="w", signalName=f"s{index}")
    execution = {"workflowId": "w", "runId": run_id}
    every = swf.get_workflow_execution_history(domain=domain, execution=execution)["events"]
    assert [event["eventId"] for event in every] == list(range(1, 8))
    seen, token = [], None
    for _ in range(10):
        page = swf.get_workflow_execution_history(domain=domain, execution=execution, maximumPageSize=3, reverseOrder=True,
                                                  **({"nextPageToken": token} if token else {}))
        seen += [event["eventId"] for event in page["events"]]
        token = page.get("nextPageToken")
        if token is None:
            break
    assert seen == list(range(7, 0, -1))


def test_accounts_and_regions_are_walls(swf: Any, emulator_server: Any) -> None:
    name = new_domain()
    other_account = swf_client(emulator_server.endpoint_url, access_key="111122223333")
    other_region = swf_client(emulator_server.endpoint_url, region="eu-west-1")
    other_account.register_domain(name=name, workflowExecutionRetentionPeriodInDays="1")
    assert other_account.describe_domain(name=name)["domainInfo"]["arn"].startswith("arn:aws:swf:us-east-1:111122223333:")
    assert _fault(swf.describe_domain, name=name)[0] == "UnknownResourceFault"
    assert _fault(other_region.describe_domain, name=name)[0] == "UnknownResourceFault"
    china = swf_client(emulator_server.endpoint_url, region="cn-north-1")
    china.register_domain(name=name, workflowExecutionRetentionPeriodInDays="1")
    assert china.describe_domain(name=name)["domainInfo"]["arn"].startswith("arn:aws-cn:swf:cn-north-1:")
