"""One request from a CLI command to a running emulator, its failure as one readable line (the
emulator's own `message` when it answered with an error)."""

from __future__ import annotations

import json


class EndpointError(Exception):
    """The emulator could not be reached, or answered with an error."""


def request(endpoint: str, path: str, *, method: str = "GET", body: bytes | None = None, timeout: float = 30) -> bytes:
    """The body of the emulator's answer to `method path`; EndpointError when there is none to use."""
    import urllib.error
    import urllib.request  # here: its HTTP and e-mail parsing would load with every `sfn-emulator serve`

    url = endpoint.rstrip("/") + path
    headers = {"Content-Type": "application/json"} if body is not None else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body, method=method, headers=headers),
                                    timeout=timeout) as answer:
            return answer.read()
    except urllib.error.HTTPError as error:
        detail = error.read().decode("utf-8", "replace")
        try:
            detail = json.loads(detail).get("message", detail)
        except ValueError:
            pass
        raise EndpointError(f"{url}: {error.code} {detail}") from None
    except (urllib.error.URLError, OSError) as error:
        raise EndpointError(f"cannot reach {endpoint}: {getattr(error, 'reason', error)}") from None
