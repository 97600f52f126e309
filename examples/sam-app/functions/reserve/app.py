"""The ReserveFunction Lambda handler of examples/sam-app/template.yaml."""

import os


def handler(event, context):
    return {"orderId": event["orderId"], "reserved": len(event["items"]), "warehouse": os.environ["WAREHOUSE"]}
