"""A Serverless Framework service packaged by `serverless package`: its `.serverless/` directory holds
the CloudFormation template the deploy would send (`cloudformation-template-update-stack.json`, with
the state machines of the serverless-step-functions plugin) and the zip files of the code, which the
template names by S3 keys ending in their file names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sfn_emulator.stacks.model import StackError, StackTemplate

TEMPLATE_FILE = "cloudformation-template-update-stack.json"
STATE_FILE = "serverless-state.json"


def is_package(path: Path) -> bool:
    return path.is_dir() and (path / TEMPLATE_FILE).is_file()


def read_package(directory: Path) -> StackTemplate:
    from sfn_emulator.stacks.cdk import read_json
    from sfn_emulator.stacks.cloudformation import decode_file, plain, template_from

    tree = decode_file(directory / TEMPLATE_FILE)
    template = plain(tree)
    state = read_json(directory / STATE_FILE) if (directory / STATE_FILE).is_file() else {}
    service = state.get("service") or {}
    name = service.get("service")
    stage = (service.get("provider") or {}).get("stage")
    if not isinstance(name, str) or not isinstance(stage, str):
        raise StackError(f"{directory / STATE_FILE}: no service name and stage (is this a `serverless package` output?)")
    return template_from(template, tree, directory / TEMPLATE_FILE, f"{name}-{stage}",
                         assets=_artifacts(directory, template.get("Resources") or {}))


def _artifacts(directory: Path, resources: dict[str, Any]) -> dict[str, Path]:
    """S3 key -> the packaged zip of the same file name in `.serverless/`."""
    found = {}
    for resource in resources.values():
        properties = resource.get("Properties") or {} if isinstance(resource, dict) else {}
        for location in (properties.get("Code"), properties.get("Content")):
            key = location.get("S3Key") if isinstance(location, dict) else None
            if isinstance(key, str) and (directory / key.rsplit("/", 1)[-1]).is_file():
                found[key] = directory / key.rsplit("/", 1)[-1]
    return found
