"""Named Python callables the Serverless Workflow cases register for their functions
(`"functions": {"<function name or resource>": "<behaviour>"}`)."""

from __future__ import annotations

import itertools
from typing import Any, Callable

Handler = Callable[[Any, Any], Any]


class FunctionExecutionError(Exception):
    """A function's own failure, named as the draft's examples name one."""


def _echo(event: Any, context: Any) -> Any:
    return event


def _greet(event: Any, context: Any) -> Any:
    return {"greeting": f"{event.get('greeting', 'Hello')} {event['name']}!".replace("  ", " ")}


def _double(event: Any, context: Any) -> Any:
    return {"doubled": event["value"] * 2}


def _square(event: Any, context: Any) -> Any:
    return event * event if isinstance(event, (int, float)) else {"squared": event["item"] ** 2}


def _confirm(event: Any, context: Any) -> Any:
    return f"confirmation of order {event['orderNumber']} sent to {event['email']}"


def _fail(event: Any, context: Any) -> Any:
    raise FunctionExecutionError("Write permission denied")


def _fail_first(times: int) -> Handler:
    calls = itertools.count(1)

    def handler(event: Any, context: Any) -> Any:
        if next(calls) <= times:
            raise FunctionExecutionError("attempt failed")
        return {"attempts": times + 1}

    return handler


STATELESS: dict[str, Handler] = {"echo": _echo, "greet": _greet, "double": _double, "square": _square, "confirm": _confirm,
                                "fail": _fail}


def behaviour(name: str) -> Handler:
    if name in STATELESS:
        return STATELESS[name]
    if name.startswith("fail_first_"):
        return _fail_first(int(name.removeprefix("fail_first_")))
    raise KeyError(f"unknown function behaviour {name!r}")
