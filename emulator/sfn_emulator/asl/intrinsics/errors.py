"""The three ways an intrinsic call fails: with the definition, in a node, in a function."""

from __future__ import annotations


class IntrinsicSyntaxError(ValueError):
    """An intrinsic call that cannot be parsed, or that names no known function."""


class CallFailed(Exception):
    """Raised inside the tree; `Intrinsic.evaluate` turns it into AWS's States.Runtime cause."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidArguments(Exception):
    """Raised by a function implementation; the calling node names the function."""
