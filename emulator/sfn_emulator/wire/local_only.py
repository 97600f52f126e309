"""The emulator answers this machine's programs, not the web pages its user happens to open.

It has no credentials to check, so a page on another site must not be able to read or change its
state. Browsers give such a page three ways in, each closed here for every path (the Step
Functions API, `/_emulator/*`, moto's `/moto-api/*` and its services):
- a cross-site request carries the page's `Origin` (or, from older browsers and some forms, only a
  `Referer`): it is refused unless that origin is the emulator's own or a loopback origin
  (`http://localhost:3000`, a local dev server, is the developer's own);
- a "simple" cross-site POST needs no preflight when its type is `text/plain`, a form or a
  multipart: `/_emulator/*` changes state only from JSON bodies (`application/json`, or CloudEvents'
  `application/cloudevents+json` and `application/cloudevents-batch+json`: none is a simple type);
- DNS rebinding points a name the page controls at 127.0.0.1, making the page same-origin: its
  requests carry that name as `Host`, so only loopback names and addresses, and the names the
  operator allows (`--allowed-hosts`, `SFN_EMULATOR_ALLOWED_HOSTS`; `*` for any), are served.
No answer carries CORS headers, so no other origin may read one either, and every answer forbids
framing (`X-Frame-Options: DENY`, `Content-Security-Policy: frame-ancestors 'none'`): a page that
cannot send a request itself could otherwise show the console in a frame and trick its user into
clicking Stop or moving the clock.
Clients that send no `Origin` and a loopback `Host` (SDKs, curl, `requests`) are not affected.

Refusals are 403 with a JSON body that says what was refused and how to allow it. The guard wraps
the HTTP server's app only: in-process requests (`sfn_emulator.inprocess`) carry AWS's hostname
as `Host` but come from this process, never from a browser.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Collection
from typing import Any, Callable, Iterable
from urllib.parse import urlsplit

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

ANY_HOST = "*"
ADMIN_PREFIX = "/_emulator/"
_READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_JSON_TYPES = frozenset({"application/json", "application/cloudevents+json", "application/cloudevents-batch+json"})
# On every answer: no page of any site, this one's included, may show it in a frame (both spellings,
# for browsers that know only the older header), so no page can overlay the console's buttons.
NO_FRAMING_HEADERS = (("X-Frame-Options", "DENY"), ("Content-Security-Policy", "frame-ancestors 'none'"))
_HOW_TO_ALLOW = "--allowed-hosts or SFN_EMULATOR_ALLOWED_HOSTS (comma-separated names, * for any)"


def is_loopback(hostname: str) -> bool:
    """localhost, its subdomains (RFC 6761: never sent to DNS), and loopback addresses."""
    name = hostname.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def hostname_of(host: str) -> str:
    """The name or address in a `Host` value, without its port (IPv6 addresses keep no brackets)."""
    try:
        name = urlsplit(f"//{host}").hostname
    except ValueError:  # a malformed port or bracket: judged by the whole value
        name = None
    return (name or host).lower().rstrip(".")


class LocalOnly:
    """WSGI middleware refusing what a web page on another site could send (see the module docstring)."""

    def __init__(self, app: WSGIApp, *, allowed_hosts: Collection[str] = (), own_hosts: Collection[str] = ()) -> None:
        self.app = app
        self.any_host = ANY_HOST in allowed_hosts
        self.allowed_hosts = frozenset(hostname_of(host) for host in [*allowed_hosts, *own_hosts] if host != ANY_HOST)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        def start_unframeable(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
            return start_response(status, [*headers, *NO_FRAMING_HEADERS], *exc_info)

        refusal = self.refusal(environ)
        if refusal is not None:
            body = json.dumps({"__type": "AccessDeniedException", "message": refusal}).encode()
            start_unframeable("403 Forbidden", [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                                                ("x-amzn-ErrorType", "AccessDeniedException")])
            return [body]
        return self.app(environ, start_unframeable)

    def refusal(self, environ: dict[str, Any]) -> str | None:
        """Why the request is refused, or None to serve it."""
        host = environ.get("HTTP_HOST")
        if host is not None and not self._host_allowed(hostname_of(host)):
            return (f"Host {host!r} is not allowed: the emulator answers loopback names and addresses (localhost, "
                    f"127.0.0.1, ::1) and the names given by {_HOW_TO_ALLOW}. "
                    f"To use it as {hostname_of(host)!r}, add that name there.")
        origin = environ.get("HTTP_ORIGIN")
        source, sender = (origin, "Origin") if origin is not None else (environ.get("HTTP_REFERER"), "Referer")
        if source is not None and not self._same_site(source, host):
            return (f"{sender} {source!r} is not allowed: the emulator answers requests from its own origin and "
                    "loopback origins only, never from web pages of other sites.")
        if str(environ.get("PATH_INFO", "")).startswith(ADMIN_PREFIX) and environ.get("REQUEST_METHOD") not in _READ_METHODS:
            content_type = str(environ.get("CONTENT_TYPE", "")).split(";")[0].strip().lower()
            if content_type not in _JSON_TYPES:
                return (f"{environ.get('REQUEST_METHOD')} {environ.get('PATH_INFO')} takes an application/json body "
                        f"(Content-Type: application/json), not {content_type or 'no content type'!r}.")
        return None

    def _host_allowed(self, hostname: str) -> bool:
        return self.any_host or is_loopback(hostname) or hostname in self.allowed_hosts

    @staticmethod
    def _same_site(source: str, host: str | None) -> bool:
        """Whether an Origin or Referer is a loopback origin or the emulator's own (the request's Host)."""
        try:
            parts = urlsplit(source)
            hostname = parts.hostname
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not hostname:
            return False  # "null" (sandboxed frames, file: pages) and other schemes are web content too
        return is_loopback(hostname) or (host is not None and parts.netloc.lower() == host.lower())
