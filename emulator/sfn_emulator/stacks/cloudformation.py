"""SAM and CloudFormation templates, YAML or JSON, read as they are deployed.

Decoded by cfn-lint's template decoder: it reads the short-form tags (`!Ref`, `!GetAtt`, `!Sub`, ...)
into their long form and keeps the line of every key, so what cannot be resolved is reported where
it was written. A SAM template (`Transform: AWS::Serverless-2016-10-31`) is turned into CloudFormation
by aws-sam-translator, the library SAM CLI itself uses. Like SAM CLI, local `CodeUri`,
`DefinitionUri` and `ContentUri` paths are swapped for S3 locations before the translation (the
translator only knows S3) and found again by those locations afterwards."""

from __future__ import annotations

import copy
import importlib
import re
from pathlib import Path
from typing import Any

from sfn_emulator.stacks.model import StackError, StackTemplate

SERVERLESS_TRANSFORM = "AWS::Serverless-2016-10-31"
# The S3 bucket standing for "a local path" while the translator runs: its keys are the paths.
LOCAL_BUCKET = "sfn-emulator-local-path"
# SAM properties that name local files: (SAM resource type, property, the CloudFormation property it becomes)
_LOCAL_PROPERTIES = (
    ("AWS::Serverless::Function", "CodeUri", "Code"),
    ("AWS::Serverless::StateMachine", "DefinitionUri", "DefinitionS3Location"),
    ("AWS::Serverless::LayerVersion", "ContentUri", "Content"),
)
_GLOBALS_SECTION = {"AWS::Serverless::Function": "Function", "AWS::Serverless::LayerVersion": "LayerVersion",
                    "AWS::Serverless::StateMachine": "StateMachine"}


def _extra(module: str, name: str) -> Any:
    """`name` from a library of the `stacks` extra; StackError saying how to install it when it is missing."""
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError:
        raise StackError(f"loading stacks needs the libraries of the `stacks` extra ({module.split('.')[0]} is "
                         "missing): install it with `pip install \".[stacks]\"` in a clone of sfn-emulator") from None


def stack_name_for(path: Path) -> str:
    """CloudFormation names a stack at deploy time; here it is the template's directory name,
    made a valid stack name (letters, digits, hyphens, starting with a letter)."""
    name = re.sub(r"[^A-Za-z0-9-]+", "-", path.resolve().parent.name).strip("-")
    return name if name[:1].isalpha() else f"stack-{name}" if name else "stack"


def decode_file(path: Path) -> dict[str, Any]:
    """The template at `path` as cfn-lint decodes it (its nodes know their lines); StackError with
    file and line when it cannot."""
    if not path.is_file():
        raise StackError(f"{path}: no such file")
    decode = _extra("cfnlint.decode", "decode")

    template, problems = decode(str(path))
    if problems or template is None:
        first = problems[0] if problems else None
        where = f"{path}:{first.linenumber}" if first is not None else str(path)
        message = first.message if first is not None else "not a template"
        raise StackError(f"{where}: {message}")
    if not isinstance(template, dict) or not isinstance(template.get("Resources"), dict):
        raise StackError(f"{path}: not a CloudFormation template (it has no Resources section)")
    return template


def line_finder(tree: Any) -> Any:
    """`line_of(path)` over a decoded template: the 1-based line of the deepest key of `path` found."""

    def line_of(path: tuple[str, ...]) -> int | None:
        node, line = tree, None
        for key in path:
            if isinstance(node, dict):
                found = next((candidate for candidate in node if candidate == key), None)
                if found is None:
                    break
                mark = getattr(found, "start_mark", None)
                line = mark.line + 1 if mark is not None else line
                node = node[found]
            elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
                node = node[int(key)]
                mark = getattr(node, "start_mark", None)
                line = mark.line + 1 if mark is not None else line
            else:
                break
        return line

    return line_of


def read_template(path: Path, *, name: str | None = None, parameters: dict[str, str] | None = None,
                  region: str = "us-east-1", account: str = "123456789012") -> StackTemplate:
    """One SAM or CloudFormation template file as the common model."""
    tree = decode_file(path)
    template = plain(tree)
    transforms = template.get("Transform") or []
    transforms = [transforms] if isinstance(transforms, str) else transforms
    unsupported = [str(entry) for entry in transforms if entry != SERVERLESS_TRANSFORM]
    if unsupported:
        raise StackError(f"{path}: the transform {', '.join(unsupported)} is not supported "
                         f"(only {SERVERLESS_TRANSFORM}, SAM, is; a macro runs only in CloudFormation)")
    stack_name = name or stack_name_for(path)
    local_paths: dict[tuple[str, str], Path] = {}
    if transforms:
        template = _translate_sam(template, path, stack_name, parameters or {}, region, account, local_paths)
    return template_from(template, tree, path, stack_name, local_paths=local_paths)


def template_from(template: dict[str, Any], tree: Any, path: Path, name: str, **found: Any) -> StackTemplate:
    """The model of a CloudFormation template's sections; `tree` (the decoded file) answers lines;
    `found` gives what the format knows of local files (`local_paths`, `assets`, `nested`)."""
    return StackTemplate(name=name, source=path, resources=template.get("Resources") or {},
                    parameters=template.get("Parameters") or {}, conditions=template.get("Conditions") or {},
                    mappings=template.get("Mappings") or {}, outputs=template.get("Outputs") or {},
                    line_of=line_finder(tree), **found)


def plain(node: Any) -> Any:
    """cfn-lint's nodes as plain dicts, lists and strings (the translator deep-copies and compares them)."""
    if isinstance(node, dict):
        return {str(key): plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [plain(value) for value in node]
    if isinstance(node, str):
        return str(node)
    return node


def _translate_sam(template: dict[str, Any], path: Path, stack_name: str, parameters: dict[str, str],
                   region: str, account: str, local_paths: dict[tuple[str, str], Path]) -> dict[str, Any]:
    """SAM to CloudFormation with aws-sam-translator; local paths come back in `local_paths`."""
    InvalidDocumentException = _extra("samtranslator.model.exceptions", "InvalidDocumentException")
    Parser = _extra("samtranslator.parser.parser", "Parser")
    Translator = _extra("samtranslator.translator.translator", "Translator")

    template = copy.deepcopy(template)
    _swap_local_paths(template, path.parent)
    values = {key: spec.get("Default") for key, spec in (template.get("Parameters") or {}).items()
              if isinstance(spec, dict) and "Default" in spec}
    values.update(parameters)
    values.update({"AWS::Region": region, "AWS::AccountId": account, "AWS::StackName": stack_name,
                   "AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com"})
    import boto3

    # The translator reads the region (and the partition from it) from a boto3 session; no call is made.
    session = boto3.session.Session(region_name=region, aws_access_key_id="unused", aws_secret_access_key="unused")
    translator = Translator(managed_policy_map=None, sam_parser=Parser(), boto_session=session)
    try:
        translated = translator.translate(template, parameter_values=values,
                                          get_managed_policy_map=_ManagedPolicies)
    except InvalidDocumentException as error:
        causes = "; ".join(str(cause.message) for cause in error.causes)
        raise StackError(f"{path}: SAM cannot translate the template: {causes}") from None
    finally:
        translator.metrics.publish()  # to its dummy publisher: timings SAM would send, kept from warning at exit
    for logical_id, resource in (translated.get("Resources") or {}).items():
        properties = resource.get("Properties") or {}
        for _, _, cfn_property in _LOCAL_PROPERTIES:
            local = _local_path_of(properties.get(cfn_property))
            if local is not None:
                local_paths[(logical_id, cfn_property)] = local
    return dict(translated)


class _ManagedPolicies(dict):  # type: ignore[type-arg]
    """IAM managed policy names to ARNs, as IAM would list them (the translator asks only for names it meets)."""

    def __missing__(self, name: str) -> str:
        return f"arn:aws:iam::aws:policy/{name}"

    def get(self, name: str, default: Any = None) -> str:  # type: ignore[override]
        return self[name]


def _swap_local_paths(template: dict[str, Any], base: Path) -> None:
    """Replace each local path property (and its Globals default) by an S3 URI in LOCAL_BUCKET."""
    sections = [(resource.get("Type"), resource.get("Properties")) for resource in template["Resources"].values()
                if isinstance(resource, dict)]
    globals_ = template.get("Globals") or {}
    sections += [(sam_type, globals_.get(section)) for sam_type, section in _GLOBALS_SECTION.items()]
    for sam_type, properties in sections:
        if not isinstance(properties, dict):
            continue
        for local_type, sam_property, _ in _LOCAL_PROPERTIES:
            value = properties.get(sam_property)
            if sam_type == local_type and isinstance(value, str) and not value.startswith("s3://"):
                properties[sam_property] = f"s3://{LOCAL_BUCKET}/{(base / value).resolve().as_posix().lstrip('/')}"


def _local_path_of(location: Any) -> Path | None:
    """The local path an S3 location in LOCAL_BUCKET stands for."""
    if not isinstance(location, dict):
        return None
    bucket = location.get("S3Bucket", location.get("Bucket"))
    key = location.get("S3Key", location.get("Key"))
    if bucket == LOCAL_BUCKET and isinstance(key, str):
        return Path("/" + key)
    return None
