"""The EventBridge tests' fixtures (see helpers.eventbridge_cloud)."""

from helpers.eventbridge_cloud import cloud, new_cloud  # noqa: F401 - fixtures
