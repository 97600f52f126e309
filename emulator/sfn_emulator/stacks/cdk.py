"""A CDK cloud assembly (`cdk.out`, what `cdk synth` writes): every stack its manifest lists, in the
order of their dependencies, with their nested stacks and their file assets (function code, layers,
definition files), found through the assets manifests by the S3 object key the template names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sfn_emulator.stacks.model import StackError, StackTemplate

STACK_ARTIFACT = "aws:cloudformation:stack"
ASSET_MANIFEST = "cdk:asset-manifest"
NESTED_STACK = "AWS::CloudFormation::Stack"


def is_assembly(path: Path) -> bool:
    return path.is_dir() and (path / "manifest.json").is_file()


def read_json(path: Path) -> Any:
    """A JSON file; StackError with file and line when it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise StackError(f"{path}: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise StackError(f"{path}:{error.lineno}: {error.msg}") from None


def read_assembly(directory: Path) -> list[StackTemplate]:
    """The assembly's stacks, each after the stacks it depends on."""
    manifest = read_json(directory / "manifest.json")
    artifacts: dict[str, Any] = manifest.get("artifacts") or {}
    assets = _assets(directory, artifacts)
    stacks = {artifact_id: artifact for artifact_id, artifact in artifacts.items()
              if artifact.get("type") == STACK_ARTIFACT}
    if not stacks:
        raise StackError(f"{directory}: the cloud assembly has no stack")
    ordered: list[str] = []

    def visit(artifact_id: str, seen: tuple[str, ...]) -> None:
        if artifact_id in ordered or artifact_id not in stacks:
            return
        if artifact_id in seen:
            raise StackError(f"{directory}/manifest.json: the stacks depend on each other: "
                             f"{' -> '.join([*seen, artifact_id])}")
        for dependency in stacks[artifact_id].get("dependencies") or []:
            visit(dependency, (*seen, artifact_id))
        ordered.append(artifact_id)

    for artifact_id in stacks:
        visit(artifact_id, ())
    return [_stack(directory, artifact_id, stacks[artifact_id], assets) for artifact_id in ordered]


def _assets(directory: Path, artifacts: dict[str, Any]) -> dict[str, Path]:
    """S3 object key -> the asset's local file or directory, from every assets manifest."""
    keys: dict[str, Path] = {}
    for artifact in artifacts.values():
        if artifact.get("type") != ASSET_MANIFEST:
            continue
        manifest = read_json(directory / artifact["properties"]["file"])
        for entry in (manifest.get("files") or {}).values():
            source = directory / entry["source"]["path"]
            for destination in (entry.get("destinations") or {}).values():
                keys[destination["objectKey"]] = source
    return keys


def _stack(directory: Path, artifact_id: str, artifact: dict[str, Any], assets: dict[str, Path]) -> StackTemplate:
    properties = artifact.get("properties") or {}
    name = properties.get("stackName") or artifact.get("displayName") or artifact_id
    return _template(directory / properties["templateFile"], str(name), assets)


def _template(path: Path, name: str, assets: dict[str, Path]) -> StackTemplate:
    from sfn_emulator.stacks.cloudformation import decode_file, plain, template_from

    tree = decode_file(path)
    template = plain(tree)
    resources = template.get("Resources") or {}
    nested = {}
    for logical_id, resource in resources.items():
        asset_path = (resource.get("Metadata") or {}).get("aws:asset:path")
        if resource.get("Type") == NESTED_STACK and isinstance(asset_path, str):
            nested[logical_id] = _template(path.parent / asset_path, f"{name}-{logical_id}", assets)
    return template_from(template, tree, path, name, assets=assets, nested=nested)
