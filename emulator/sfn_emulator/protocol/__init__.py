"""The AWS JSON protocol as Coral speaks it, below every layer that answers or makes a request.

Its errors (`{"__type", "message"}` with an HTTP status) and its botocore-model request checks are
shared by the wire (requests from clients), the control plane (its own refusals) and task resources
(requests a state machine makes to a modelled service), so none of them reaches into another.
"""
