"""botocore's models of the APIs served (Step Functions'), which name the operations and shape the requests.

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
def service_model(name: str) -> ServiceModel:
    """botocore's model of the API `name` ("stepfunctions", ...), read once on first use."""
    from botocore.loaders import create_loader
    from botocore.model import ServiceModel

    # By path: the loader's `load_service_model` first lists every service botocore knows (hundreds
    # of directories) to check the name. No SDK extras exist for the APIs served.
    loader = create_loader()
    version = loader.determine_latest_version(name, "service-2")
    return ServiceModel(loader.load_data(f"{name}/{version}/service-2"), service_name=name)


def stepfunctions_model() -> ServiceModel:
    """Step Functions' model (in-process calls by method name never need it)."""
    return service_model(SERVICE_NAME)


@functools.cache
def operation_names() -> frozenset[str]:
    return frozenset(stepfunctions_model().operation_names)
