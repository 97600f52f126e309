"""Shared test helpers: botocore shape checks and raw HTTP."""
