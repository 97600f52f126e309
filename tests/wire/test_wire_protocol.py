"""The JSON 1.0 protocol as AWS Step Functions speaks it, over real HTTP, with a scripted control plane."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError
from helpers.clients import make_client
from helpers.rawhttp import call, send

import sfn_emulator
from sfn_emulator.service.errors import StateMachineDoesNotExist

SFN_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:demo"


def signed_headers(region: str, access_key: str) -> dict[str, str]:
    """The headers an SDK would sign a request with (the emulator reads, but does not check, them)."""
    request = AWSRequest(method="POST", url="http://localhost/", data=b"{}")
    SigV4Auth(Credentials(access_key, "secret"), "states", region).add_auth(request)
    return dict(request.headers.items())


class TestDispatch:
    def test_the_target_names_the_operation_and_the_body_its_members(self, wire_server):
        sfn = make_client(wire_server.endpoint_url)
        sfn.describe_state_machine(stateMachineArn=SFN_ARN)
        assert wire_server.service.last.operation == "DescribeStateMachine"
        assert wire_server.service.last.params == {"stateMachineArn": SFN_ARN}

    def test_members_the_model_does_not_know_are_dropped(self, wire_server):
        call(wire_server.endpoint_url, "DescribeStateMachine", {"stateMachineArn": SFN_ARN, "bogus": 1})
        assert wire_server.service.last.params == {"stateMachineArn": SFN_ARN}

    def test_null_members_count_as_absent(self, wire_server):
        call(wire_server.endpoint_url, "ListStateMachines", {"maxResults": None, "nextToken": None})
        assert wire_server.service.last.params == {}

    def test_booleans_given_as_strings_and_fractions_given_to_integers_are_converted(self, wire_server):
        call(wire_server.endpoint_url, "GetExecutionHistory",
             {"executionArn": "arn", "reverseOrder": "TRUE", "maxResults": 10.9})
        assert wire_server.service.last.params == {"executionArn": "arn", "reverseOrder": True, "maxResults": 10}

    def test_the_result_is_sent_as_json_1_0_with_a_request_id(self, wire_server):
        wire_server.service.results["ListActivities"] = {"activities": []}
        response = call(wire_server.endpoint_url, "ListActivities", {})
        assert response.status == 200
        assert response.headers["content-type"] == "application/x-amz-json-1.0"
        assert uuid.UUID(response.headers["x-amzn-requestid"])
        assert response.json() == {"activities": []}

    def test_timestamps_are_epoch_seconds_with_milliseconds(self, wire_server):
        created = datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)
        wire_server.service.results["DescribeActivity"] = {
            "activityArn": "arn:aws:states:us-east-1:123456789012:activity:a", "name": "a", "creationDate": created
        }
        response = call(wire_server.endpoint_url, "DescribeActivity", {"activityArn": "arn"})
        assert response.json()["creationDate"] == 1704164645.678
        described = make_client(wire_server.endpoint_url).describe_activity(activityArn="arn")
        assert described["creationDate"] == created


class TestCallerIdentity:
    def test_the_region_comes_from_the_credential_scope(self, wire_server):
        make_client(wire_server.endpoint_url, region="eu-west-3").list_activities()
        assert wire_server.service.last.region == "eu-west-3"
        assert wire_server.service.last.account == wire_server.default_account

    def test_an_access_key_of_twelve_digits_is_the_account(self, wire_server):
        make_client(wire_server.endpoint_url, access_key="111122223333").list_activities()
        assert wire_server.service.last.account == "111122223333"

    @pytest.mark.parametrize("access_key", ["AKIAIOSFODNN7EXAMPLE", "1111222233334", "11112222333"])
    def test_any_other_access_key_means_the_default_account(self, wire_server, access_key):
        call(wire_server.endpoint_url, "ListActivities", {}, headers=signed_headers("ap-south-1", access_key))
        assert (wire_server.service.last.account, wire_server.service.last.region) == (wire_server.default_account, "ap-south-1")

    def test_an_unsigned_request_gets_the_defaults(self, wire_server):
        call(wire_server.endpoint_url, "ListActivities", {})
        assert (wire_server.service.last.account, wire_server.service.last.region) == (wire_server.default_account, wire_server.default_region)


class TestErrors:
    def test_a_service_error_carries_the_service_namespace(self, wire_server):
        wire_server.service.failures["DescribeStateMachine"] = StateMachineDoesNotExist(
            f"State Machine Does Not Exist: '{SFN_ARN}'"
        )
        response = call(wire_server.endpoint_url, "DescribeStateMachine", {"stateMachineArn": SFN_ARN})
        assert response.status == 400
        assert response.json() == {
            "__type": "com.amazonaws.swf.service.v2.model#StateMachineDoesNotExist",
            "message": f"State Machine Does Not Exist: '{SFN_ARN}'",
        }
        assert response.headers["x-amzn-errortype"] == (
            "StateMachineDoesNotExist:http://internal.amazon.com/coral/com.amazonaws.swf.service.v2.model/"
        )
        assert uuid.UUID(response.headers["x-amzn-requestid"])

    def test_boto3_reads_the_code_and_message(self, wire_server):
        wire_server.service.failures["DescribeStateMachine"] = StateMachineDoesNotExist("gone")
        sfn = make_client(wire_server.endpoint_url)
        with pytest.raises(sfn.exceptions.StateMachineDoesNotExist) as raised:
            sfn.describe_state_machine(stateMachineArn=SFN_ARN)
        assert raised.value.response["Error"] == {"Code": "StateMachineDoesNotExist", "Message": "gone"}

    def test_a_model_violation_is_coral_validate_s_validation_exception(self, wire_server):
        response = call(wire_server.endpoint_url, "DescribeStateMachine", {})
        assert response.status == 400
        assert response.json() == {
            "__type": "com.amazon.coral.validate#ValidationException",
            "message": "1 validation error detected: Value null at 'stateMachineArn' failed to satisfy "
            "constraint: Member must not be null",
        }
        assert wire_server.service.calls == []

    @pytest.mark.parametrize("body", [b"this is not json", b"[]", b"42", b'"text"', b"", b"\xff\xfe", b"{", b'{"a": NaN}'])
    def test_a_body_that_is_not_a_json_object_is_a_serialization_exception(self, wire_server, body):
        response = send(wire_server.endpoint_url, body, target="AWSStepFunctions.ListStateMachines")
        assert response.status == 400
        assert response.json() == {"__type": "com.amazon.coral.service#SerializationException"}

    def test_a_member_of_the_wrong_json_type_is_a_serialization_exception(self, wire_server):
        response = send(wire_server.endpoint_url, '{"maxResults": "ten"}', target="AWSStepFunctions.ListStateMachines")
        assert response.status == 400
        assert response.json() == {
            "__type": "com.amazon.coral.service#SerializationException",
            "message": "class java.lang.String can not be converted to an Integer",
        }

    @pytest.mark.parametrize("target", [None, "AWSStepFunctions.LaunchRocket", "DynamoDB_20120810.ListTables",
                                        "AWSStepFunctions.", "ListStateMachines"])
    def test_an_unknown_or_missing_target_is_an_unknown_operation(self, wire_server, target):
        response = send(wire_server.endpoint_url, "{}", target=target)
        assert response.status == 400
        assert response.json() == {"__type": "com.amazon.coral.service#UnknownOperationException"}
        assert response.headers["x-amzn-errortype"].startswith("UnknownOperationException:")

    def test_a_fault_is_a_500_internal_failure_and_the_server_keeps_serving(self, wire_server, caplog):
        wire_server.service.failures["ListActivities"] = ZeroDivisionError("division by zero")
        response = call(wire_server.endpoint_url, "ListActivities", {})
        assert response.status == 500
        assert response.json()["__type"] == "com.amazon.coral.service#InternalFailure"
        assert "ZeroDivisionError" in response.json()["message"]
        assert any(record.exc_info and record.exc_info[0] is ZeroDivisionError for record in caplog.records)
        assert call(wire_server.endpoint_url, "ListStateMachines", {}).status == 200

    def test_boto3_sees_a_fault_as_internal_failure(self, wire_server):
        wire_server.service.failures["ListActivities"] = RuntimeError("bug")
        with pytest.raises(ClientError) as raised:
            make_client(wire_server.endpoint_url).list_activities()
        assert raised.value.response["Error"]["Code"] == "InternalFailure"
        assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500


class TestHealth:
    def test_health_answers_ok_and_the_version(self, wire_server):
        response = send(wire_server.endpoint_url, method="GET", path="/_emulator/health")
        assert response.status == 200
        assert json.loads(response.body) == {"status": "ok", "version": sfn_emulator.__version__}
