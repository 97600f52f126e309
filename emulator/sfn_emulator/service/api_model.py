"""The models of the APIs served (Step Functions'), which name the operations and shape the requests.

botocore's data files, read as plain JSON (`sfn_emulator.protocol.service_json`): importing
`botocore.model`, or botocore's loader, would load botocore's auth, compat and urllib3 modules, most
of a server's start-up time, for what the wire needs: the operations and their input shapes.
"""

from __future__ import annotations

import functools

from sfn_emulator.protocol.service_json import ServiceJson, read_service_json

SERVICE_NAME = "stepfunctions"


@functools.cache
def service_model(name: str) -> ServiceJson:
    """The model of the API `name` ("stepfunctions", ...), read once on first use."""
    return read_service_json(name)
