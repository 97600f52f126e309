"""The pytest plugin with stacks: ini `sfn_emulator_stacks` loads them into every test's own account,
as `sfn_emulator.stacks`; a stack that cannot be read errors the test with its message."""

from __future__ import annotations

import textwrap

import pytest
from helpers.stack_fixtures import SAM_STOCK_TRADER

pytest_plugins = ["pytester"]
QUIET = ("-p", "no:hypothesispytest", "-p", "no:cacheprovider", "-p", "no:randomly")

SUITE = """
def test_buy(sfn_emulator, sfn_client):
    stack, = sfn_emulator.stacks
    names = [machine["name"] for machine in sfn_client.list_state_machines()["stateMachines"]]
    assert names == ["StockTradingStateMachine"]
    result = sfn_emulator.run(stack.state_machines["StockTradingStateMachine"], {"stock_price": 20})
    assert result.visited_states[2] == "Buy Stock", result.visited_states

def test_sell_in_another_account(sfn_emulator):
    stack, = sfn_emulator.stacks
    assert stack.state_machines["StockTradingStateMachine"].split(":")[4] == sfn_emulator.account
    result = sfn_emulator.run(stack.state_machines["StockTradingStateMachine"], {"stock_price": 70})
    assert result.visited_states[2] == "Sell Stock", result.visited_states
"""


def test_ini_stacks_are_loaded_into_each_tests_account(pytester: pytest.Pytester) -> None:
    pytester.makeini(f"[pytest]\nsfn_emulator_stacks = {SAM_STOCK_TRADER}\n")
    pytester.makepyfile(test_trades=textwrap.dedent(SUITE))
    pytester.runpytest(*QUIET).assert_outcomes(passed=2)


def test_an_unreadable_ini_stack_errors_the_test_with_its_message(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nsfn_emulator_stacks = missing/template.yaml\n")
    pytester.makepyfile(test_nothing="def test_it(sfn_emulator):\n    pass\n")
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*sfn_emulator_stacks: *missing/template.yaml: no such file or directory*"])
