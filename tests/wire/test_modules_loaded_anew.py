"""An app answers with the Flask it was built with, whatever happens to `sys.modules` afterwards.

pytester's inline runs unload every module first imported while they ran: an emulator whose app was
built in such a run (a session server asked for its coverage by an inner suite) keeps that Flask while
the next import of `flask` loads a second copy, with a request context of its own. An app that looked
Flask up again at request time read a request from the wrong copy, and every in-process call of the
tests that came after failed ("Working outside of request context").
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from test_front import REQUESTS, _answer

from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator

UNLOADED = ("flask",)


@contextmanager
def loaded_anew(*packages: str) -> Iterator[None]:
    """`packages` unloaded and imported again for the block, as after a pytester inline run; the
    copies the process had before are back afterwards."""
    def ours(name: str) -> bool:
        return name.split(".")[0] in packages

    before = {name: module for name, module in sys.modules.items() if ours(name)}
    for name in before:
        del sys.modules[name]
    try:
        for package in packages:
            assert importlib.import_module(package) is not before[package]
        yield
    finally:
        for name in [name for name in sys.modules if ours(name)]:
            del sys.modules[name]
        sys.modules.update(before)


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with Emulator(Settings(clock="manual")) as instance:
        yield instance


# moto's server, which answers other services' calls, looks Flask's request up when a call comes
# (`moto.core.utils.convert_to_flask_response`): its answers do depend on which Flask is loaded.
MOTO_LOOKS_FLASK_UP_PER_REQUEST = pytest.mark.xfail(strict=True,
                                                    reason="moto's server imports flask.request per request")
CASES = [pytest.param(request, id=name, marks=[MOTO_LOOKS_FLASK_UP_PER_REQUEST] if name == "another service's call" else [])
         for name, request in REQUESTS.items()]


@pytest.mark.parametrize("request_", CASES)
def test_an_app_answers_alike_after_flask_is_imported_anew(emulator: Emulator, request_: tuple) -> None:
    expected = _answer(emulator.app, request_)
    with loaded_anew(*UNLOADED):
        assert _answer(emulator.app, request_) == expected
