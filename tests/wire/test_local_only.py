"""The emulator serves this machine's programs, never a web page of another site, over a real
server: Host, Origin/Referer and content-type rules (cases: fixtures/wire/local_only.json)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from helpers.paths import FIXTURES_ROOT
from helpers.rawhttp import send

from sfn_emulator.config import Settings

CASES = json.loads((FIXTURES_ROOT / "wire" / "local_only.json").read_text())["cases"]
ALLOWED = {"default": ("sfn-emulator",), "any": ("*",)}


@pytest.fixture(scope="module")
def endpoints() -> Iterator[dict[str, str]]:
    """One emulator served twice: with the extra host `sfn-emulator` allowed, and with every host."""
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.wire import HttpServer

    with Emulator(Settings()) as emulator:
        servers = {name: HttpServer(emulator.app, "127.0.0.1", 0, allowed_hosts=hosts).start()
                   for name, hosts in ALLOWED.items()}
        try:
            yield {name: server.endpoint_url for name, server in servers.items()}
        finally:
            for server in servers.values():
                server.stop()


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_what_a_web_page_could_send_is_refused(endpoints: dict[str, str], case: dict[str, Any]) -> None:
    url = endpoints[case.get("server", "default")]
    own = urlsplit(url).netloc
    headers = {name: value.replace("{own}", own) for name, value in case.get("headers", {}).items()}
    response = send(url, case.get("body"), target=case.get("target"), method=case.get("method", "POST"),
                    path=case.get("path", "/"), headers=headers)
    assert response.status == case["expect"], response.body
    assert not any(name.startswith("access-control-") for name in response.headers)
    if case["expect"] == 403:
        assert response.headers["content-type"] == "application/json"
        refusal = response.json()
        assert refusal["__type"] == "AccessDeniedException"
        for words in case["refused"]:
            assert words in refusal["message"]


def test_boto3_sees_a_refused_host_as_access_denied_with_the_reason(endpoints: dict[str, str]) -> None:
    from botocore.exceptions import ClientError
    from helpers.clients import make_client

    sfn = make_client(endpoints["default"])
    # what a browser sends after DNS rebinding: the attacker's name as Host, to a loopback address
    sfn.meta.events.register("before-sign", lambda request, **_: request.headers.__setitem__("Host", "rebind.attacker.example"))
    with pytest.raises(ClientError) as raised:
        sfn.list_state_machines()
    error = raised.value.response["Error"]
    assert error["Code"] == "AccessDeniedException"
    assert "rebind.attacker.example" in error["Message"] and "--allowed-hosts" in error["Message"]
