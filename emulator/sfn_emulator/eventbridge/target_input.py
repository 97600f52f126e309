"""What a rule's target receives, as EventBridge shapes it (EventBridge API reference: Target;
user guide: "Amazon EventBridge input transformation"):

- no `Input`, `InputPath` or `InputTransformer`: the whole matched event, as JSON;
- `Input`: that JSON text, and nothing from the event;
- `InputPath`: the part of the event the JSONPath selects;
- `InputTransformer`: `InputTemplate` with each `<name>` replaced by the value its `InputPathsMap`
  path selects, or by a predefined variable (`aws.events.rule-arn`, `aws.events.rule-name`,
  `aws.events.event.ingestion-time`, `aws.events.event` and `aws.events.event.json`). A template that
  is a JSON object or array is filled as JSON: inside a string literal a value goes in as text
  (escaped), elsewhere as its JSON (a string gets its quotes), so `{"id": <id>}` and `{"id": "<id>"}`
  give the same. Any other template is text and the values go in as text. A path that selects
  nothing gives `null` in JSON (nothing inside a string) and nothing in a text template (the user
  guide does not say; this is the emulator's choice).

`payload` answers the text delivered: the body of an SQS message or SNS notification, the input of
an execution, the event of a Lambda function (parsed by the caller).
"""

from __future__ import annotations

import json
import re
from typing import Any

_PLACEHOLDER = re.compile(r"<([A-Za-z0-9_.\-]+)>")
_NOTHING = object()


def payload(target: dict[str, Any], event: dict[str, Any], *, rule_arn: str, rule_name: str) -> str:
    """The text `target` receives for the matched `event`."""
    if target.get("Input") is not None:
        return str(target["Input"])
    if target.get("InputPath"):
        selected = _select(target["InputPath"], event)
        return json.dumps(None if selected is _NOTHING else selected)
    transformer = target.get("InputTransformer")
    if transformer:
        values = {name: _select(path, event) for name, path in (transformer.get("InputPathsMap") or {}).items()}
        values.update({
            "aws.events.rule-arn": rule_arn,
            "aws.events.rule-name": rule_name,
            "aws.events.event.ingestion-time": event.get("time"),  # delivered as it is put, here
            "aws.events.event": json.dumps(event),
            "aws.events.event.json": event,
        })
        return _fill(transformer.get("InputTemplate", ""), values)
    return json.dumps(event)


def _select(path: str, event: dict[str, Any]) -> Any:
    """What an EventBridge JSONPath selects in the event (the first match), or _NOTHING."""
    from jsonpath_ng.ext import parse

    matches = parse(path).find(event)
    return matches[0].value if matches else _NOTHING


def _fill(template: str, values: dict[str, Any]) -> str:
    if not template.lstrip().startswith(("{", "[")):
        return _PLACEHOLDER.sub(lambda match: _as_text(match, values), template)
    filled: list[str] = []
    in_string = escaped = False
    position = 0
    while position < len(template):
        match = _PLACEHOLDER.match(template, position)
        if match is not None and match.group(1) in values:
            value = values[match.group(1)]
            if in_string:
                filled.append("" if value is _NOTHING else json.dumps(_as_text(match, values))[1:-1])
            else:
                filled.append("null" if value is _NOTHING else json.dumps(value))
            position = match.end()
            continue
        character = template[position]
        if character == '"' and not escaped:
            in_string = not in_string
        escaped = in_string and character == "\\" and not escaped
        filled.append(character)
        position += 1
    return "".join(filled)


def _as_text(match: re.Match[str], values: dict[str, Any]) -> str:
    """A placeholder's value as text (a placeholder this transformer does not define stays as written)."""
    if match.group(1) not in values:
        return match.group(0)
    value = values[match.group(1)]
    if value is _NOTHING:
        return ""
    return value if isinstance(value, str) else json.dumps(value)
