"""The Python API: run a definition in-process and get the execution back, no boto3 needed."""

from pathlib import Path

from checkout import charge_card
from sfn_emulator import run_definition

CHECKOUT = Path(__file__).parent / "fixtures" / "Checkout.asl.json"


def test_run_a_definition():
    result = run_definition(CHECKOUT, {"orderId": "o-4", "card": "4242"}, functions={"charge-card": charge_card})
    assert result.status == "SUCCEEDED"
    assert result.output == {"orderId": "o-4", "chargeId": "ch-o-4", "status": "SHIPPED"}
    assert result.visited_states == ["Charge", "WaitForWarehouse", "Ship"]
