"""Which format a path is, and its reader: a CDK cloud assembly directory, a Serverless Framework
`.serverless/` directory, Terraform's JSON, or a SAM or CloudFormation template."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from sfn_emulator.stacks.model import StackError, StackTemplate


def read_stack(path: Path, *, parameters: Mapping[str, str], account: str, region: str) -> list[StackTemplate]:
    """The stacks at `path`, in the order they load; StackError when it cannot be read."""
    from sfn_emulator.stacks import cdk, serverless

    if cdk.is_assembly(path):
        return cdk.read_assembly(path)
    if serverless.is_package(path):
        return [serverless.read_package(path)]
    if path.is_dir() and serverless.is_package(path / ".serverless"):
        return [serverless.read_package(path / ".serverless")]
    if path.is_dir():
        raise StackError(f"{path}: a directory that is no CDK cloud assembly (manifest.json) or Serverless "
                         "package (.serverless/ with cloudformation-template-update-stack.json)")
    if not path.exists():
        raise StackError(f"{path}: no such file or directory")
    if path.suffix.lower() == ".json":
        from sfn_emulator.stacks.cdk import read_json
        from sfn_emulator.stacks.terraform import is_terraform_json, read_terraform

        document = read_json(path)
        if is_terraform_json(document):
            return [read_terraform(path, document, account=account, region=region)]
    from sfn_emulator.stacks.cloudformation import read_template

    return [read_template(path, parameters=dict(parameters), account=account, region=region)]
