"""TestState's mocks, Context Object, state configuration and stateName over HTTP with boto3: the
table in fixtures/test_state/, sent as users send it."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from helpers.clients import make_client
from helpers.teststate_cases import api_request, cases, check_answer


@pytest.fixture(scope="module")
def client(emulator_server: Any) -> Any:
    """One boto3 client for the whole table (making one takes longer than a TestState call)."""
    return make_client(emulator_server.endpoint_url)


@pytest.mark.parametrize("case", cases())
def test_test_state_case(client: Any, case: dict[str, Any]) -> None:
    expect = case["expect"]
    if "refused" in expect:
        with pytest.raises(ClientError) as refusal:
            client.test_state(**api_request(case))
        assert [refusal.value.response["Error"]["Code"], refusal.value.response["Error"]["Message"]] == expect["refused"]
        return
    answer = client.test_state(**api_request(case))
    answer.pop("ResponseMetadata")
    check_answer(answer, expect)
