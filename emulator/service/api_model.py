"""botocore's model of the Step Functions API, which names the operations and shapes the requests.

Read with botocore's loader alone: `botocore.session` would also import botocore's client, waiter
and documentation machinery, which neither the control plane nor the wire uses, and which is most
of a server's start-up time.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from botocore.model import ServiceModel

SERVICE_NAME = "stepfunctions"


@functools.cache
def stepfunctions_model() -> ServiceModel:
    """The model, read once on first use (in-process calls by method name never need it)."""
    from botocore.loaders import create_loader
    from botocore.model import ServiceModel

    return ServiceModel(create_loader().load_service_model(SERVICE_NAME, "service-2"), service_name=SERVICE_NAME)


@functools.cache
def operation_names() -> frozenset[str]:
    return frozenset(stepfunctions_model().operation_names)
