"""EventBridge connections for HTTP Tasks: what a connection adds to a request, read from moto's events
backend (where `events:CreateConnection` through the emulator's endpoint or an in-process client put it).

A connection's authorization (EventBridge API reference, CreateConnection) becomes a header:
- API_KEY: the header `ApiKeyName: ApiKeyValue`;
- BASIC: `Authorization: Basic base64(Username:Password)`;
- OAUTH_CLIENT_CREDENTIALS: `Authorization: Bearer <access_token>`, the token fetched from the
  connection's AuthorizationEndpoint with its HttpMethod, the client id and secret as Basic
  credentials, `grant_type=client_credentials` and the connection's OAuthHttpParameters.
Its InvocationHttpParameters (headers, query string and body parameters) are merged into every request.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from msgspec import Struct, field

from sfn_emulator.asl.errors import RUNTIME, StatesError
from sfn_emulator.resources.bounded_reads import http_exchange

_CONNECTION_STATE_ERROR = "Events.ConnectionResource.InvalidConnectionState"
_TOKEN_DEADLINE_SECONDS = 60.0  # for the whole token request, as the HTTP Task's own
_TOKEN_LIMIT_BYTES = 1 << 16  # a token answer is a small JSON object


class ConnectionParameters(Struct):
    """What a connection puts into a request: headers (its authorization too), query and body parameters."""

    headers: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    body: dict[str, str] = field(default_factory=dict)


def connection_parameters(connection_arn: Any, account: str, region: str) -> ConnectionParameters:
    """The parameters of the connection named by `connection_arn`, its OAuth token fetched if it has one."""
    connection = _find(connection_arn, account, region)
    auth = connection.auth_parameters or {}
    parameters = ConnectionParameters(**_pairs(auth.get("InvocationHttpParameters")))
    kind = connection.authorization_type
    if kind == "API_KEY":
        key = auth.get("ApiKeyAuthParameters") or {}
        parameters.headers[str(key.get("ApiKeyName"))] = str(key.get("ApiKeyValue"))
    elif kind == "BASIC":
        basic = auth.get("BasicAuthParameters") or {}
        parameters.headers["Authorization"] = _basic(basic.get("Username"), basic.get("Password"))
    elif kind == "OAUTH_CLIENT_CREDENTIALS":
        parameters.headers["Authorization"] = f"Bearer {_oauth_token(auth.get('OAuthParameters') or {})}"
    return parameters


def _find(connection_arn: Any, account: str, region: str) -> Any:
    """The connection in moto's events backend of the ARN's account and region."""
    from moto.events.models import events_backends

    parts = str(connection_arn).split(":")
    if len(parts) < 6 or parts[2] != "events" or not parts[5].startswith("connection/"):
        raise StatesError(RUNTIME, f"'{connection_arn}' is not the ARN of an EventBridge connection")
    name = parts[5].split("/")[1]
    connection = events_backends[parts[4] or account][parts[3] or region].connections.get(name)
    if connection is None or connection.arn != connection_arn:
        raise StatesError(RUNTIME, f"The EventBridge connection {connection_arn} does not exist.")
    if connection.state != "AUTHORIZED":
        raise StatesError(_CONNECTION_STATE_ERROR, f"The connection {connection_arn} is {connection.state}.")
    return connection


def _pairs(http_parameters: Any) -> dict[str, dict[str, str]]:
    """HeaderParameters, QueryStringParameters and BodyParameters as name -> value maps."""
    http_parameters = http_parameters or {}
    found = {}
    for member, field_name in (("HeaderParameters", "headers"), ("QueryStringParameters", "query"),
                               ("BodyParameters", "body")):
        found[field_name] = {str(pair.get("Key")): str(pair.get("Value"))
                             for pair in http_parameters.get(member) or [] if isinstance(pair, dict)}
    return found


def _basic(user: Any, password: Any) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


def _oauth_token(oauth: dict[str, Any]) -> str:
    """An access token from the authorization server, by the OAuth client-credentials grant."""
    import urllib.parse
    import urllib.request  # urllib's client loads with the first token asked for

    client = oauth.get("ClientParameters") or {}
    extra = _pairs(oauth.get("OAuthHttpParameters"))
    endpoint = str(oauth.get("AuthorizationEndpoint", ""))
    if extra["query"]:
        endpoint += ("&" if "?" in endpoint else "?") + urllib.parse.urlencode(extra["query"])
    body = urllib.parse.urlencode({"grant_type": "client_credentials", **extra["body"]}).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded", **extra["headers"],
               "Authorization": _basic(client.get("ClientID"), client.get("ClientSecret"))}
    request = urllib.request.Request(endpoint, data=body, headers=headers,
                                     method=str(oauth.get("HttpMethod") or "POST"))
    try:
        answer = http_exchange(request, limit_bytes=_TOKEN_LIMIT_BYTES, deadline_seconds=_TOKEN_DEADLINE_SECONDS)
        if not 200 <= answer.status < 300:
            raise ValueError(f"HTTP Error {answer.status}: {answer.reason}")
        token = json.loads(answer.body).get("access_token")
    except (OSError, ValueError, AttributeError) as error:
        raise StatesError(_CONNECTION_STATE_ERROR, f"The OAuth token request to {endpoint} failed: {error}") from None
    if not isinstance(token, str) or not token:
        raise StatesError(_CONNECTION_STATE_ERROR, f"The OAuth token answer of {endpoint} has no access_token.")
    return token
