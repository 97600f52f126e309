"""The error every JSON-protocol answer shares, and the two Coral's framework raises before a service sees a request."""

from __future__ import annotations

from collections.abc import Mapping


class ApiError(Exception):
    """An error answered to the client with HTTP `status` and `__type` = `code` (the class name by default)."""

    status = 400
    code: str = ""

    def __init__(self, message: str, *, status: int | None = None, members: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        # The error shape's members beside `message` (ValidationException's `reason`, ResourceNotFound's
        # `resourceName`, ...): answered next to it, where botocore reads them into the error response.
        self.members: dict[str, str] = dict(members or {})
        if status is not None:  # the framework's errors take the status of what went wrong
            self.status = status

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "code" not in cls.__dict__:
            cls.code = cls.__name__


class ValidationException(ApiError):
    pass


class SerializationException(ApiError):
    pass
