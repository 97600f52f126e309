"""TestState's mocks, Context Object, state configuration and stateName, in-process: the table in
fixtures/test_state/ run on the service's own method."""

from __future__ import annotations

from typing import Any

import pytest
from helpers.teststate_cases import api_request, cases, check_answer

from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import ApiError


@pytest.mark.parametrize("case", cases())
def test_test_state_case(service: StepFunctionsService, case: dict[str, Any]) -> None:
    expect = case["expect"]
    if "refused" in expect:
        with pytest.raises(ApiError) as refusal:
            service.test_state(**api_request(case))
        assert [refusal.value.code, refusal.value.message] == expect["refused"]
        return
    check_answer(service.test_state(**api_request(case)), expect)
