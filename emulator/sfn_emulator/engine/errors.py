"""Engine errors the control plane maps to API errors (the engine knows nothing of the API)."""


class InvalidTaskToken(Exception):
    """A task token that this emulator cannot have issued (malformed)."""


class TaskNotFound(Exception):
    """A well-formed task token whose task is unknown or already closed."""


class TaskTimedOutError(Exception):
    """The task behind the token timed out before the answer arrived."""


class NotRedrivable(Exception):
    """The engine holds no state of this execution to run again from."""
