"""Loads resolved stacks into an emulator through the operations a user would call: resources in
its moto backends, Python functions registered as callables, state machines created.

Resources are made when first referred to (by `Ref`, `Fn::GetAtt`, `Fn::Sub`) or, at the latest,
in template order, so a reference always meets the name and ARN the service really gave; a
reference back to a resource still being made is a circular reference."""

from __future__ import annotations

import hashlib
import json
import logging
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol

from sfn_emulator.stacks import functions as python_functions
from sfn_emulator.stacks.intrinsics import Identity, Missing, Resolver, Unresolvable
from sfn_emulator.stacks.model import StackTemplate
from sfn_emulator.stacks.physical import NAME_PROPERTIES, Place, identity_of, resource_name
from sfn_emulator.stacks.records import NONE, PYTHON, LoadedFunction, LoadedResource, LoadedStateMachine, Stack
from sfn_emulator.stacks.resources import MAKERS, attribute_text

log = logging.getLogger(__name__)

STATE_MACHINE = "AWS::StepFunctions::StateMachine"
ACTIVITY = "AWS::StepFunctions::Activity"
FUNCTION = "AWS::Lambda::Function"
LAYER = "AWS::Lambda::LayerVersion"
NESTED_STACK = "AWS::CloudFormation::Stack"
LAMBDA_DEFAULT_TIMEOUT = 3.0  # seconds: CloudFormation's default for a function without Timeout


class Target(Protocol):
    """The emulator a stack is loaded into, in one account and region."""

    account: str
    region: str
    function_fallback: str  # how a function that is not Python is served: endpoint, mock or none

    def create_state_machine(self, **request: Any) -> str: ...

    def create_activity(self, name: str) -> str: ...

    def client(self, service: str) -> Any: ...

    def register_function(self, arn: str, handler: Callable[[Any, Any], Any], timeout: float) -> None: ...


class StackLoader:
    """Loads templates into `target`; `exports` (Outputs' Export names -> values) grow as stacks load."""

    def __init__(self, target: Target, exports: dict[str, Any] | None = None) -> None:
        self.target = target
        self.exports = exports if exports is not None else {}

    def load(self, templates: list[StackTemplate], parameters: Mapping[str, str]) -> Stack:
        """Load each template (in the given order) and answer what was made."""
        stack = Stack()
        for template in templates:
            load = _TemplateLoad(self, template, _parameters_for(template, parameters), stack)
            for name, value in load.run().items():
                load._add(stack.outputs, name, value)
        return stack


def _parameters_for(template: StackTemplate, given: Mapping[str, str]) -> dict[str, str]:
    """The parameters meant for `template`: `KEY=VALUE` for any, `Stack.KEY=VALUE` for the stack so named."""
    chosen = {key: value for key, value in given.items() if "." not in key}
    prefix = f"{template.name}."
    chosen.update({key[len(prefix):]: value for key, value in given.items() if key.startswith(prefix)})
    return chosen


class _TemplateLoad:
    """The loading of one template (and of its nested stacks)."""

    def __init__(self, loader: StackLoader, template: StackTemplate, parameters: Mapping[str, str], stack: Stack) -> None:
        self.loader = loader
        self.target = loader.target
        self.template = template
        self.stack = stack
        self.place = Place(template.name, self.target.account, self.target.region)
        self.resolver = Resolver(template, parameters=parameters, account=self.place.account,
                                 region=self.place.region, identity=self.identity, exports=loader.exports)
        self.identities: dict[str, Identity] = {}
        self.in_progress: list[str] = []
        self.layer_paths: dict[str, Path] = {}  # layer version ARN -> its local content

    # -- identities, made on demand ------------------------------------------------------------
    def identity(self, logical_id: str) -> Identity:
        if logical_id in self.identities:
            return self.identities[logical_id]
        path = ("Resources", logical_id)
        if logical_id in self.in_progress:
            cycle = " -> ".join([*self.in_progress[self.in_progress.index(logical_id):], logical_id])
            return Identity(self.resolver.report(f"circular reference: {cycle}", path))
        resource = self.template.resources[logical_id]
        kind = str(resource.get("Type", ""))
        if not self._exists(logical_id):  # reported where it is referred to
            raise Unresolvable(f"{logical_id} is not created: its condition {resource.get('Condition')} is not true")
        self.in_progress.append(logical_id)
        try:
            made = self._make(logical_id, kind, resource, path)
        finally:
            self.in_progress.pop()
        self.identities[logical_id] = made
        return made

    def _make(self, logical_id: str, kind: str, resource: dict[str, Any], path: tuple[str, ...]) -> Identity:
        raw = resource.get("Properties") or {}
        properties_path = (*path, "Properties")
        if kind in MAKERS:
            properties = self.resolver.value(raw, properties_path)
            missing = _first_missing(properties)
            if missing is not None:  # CloudFormation would not create it either; the cause is reported already
                return Identity(missing)
            return self._make_resource(logical_id, kind, properties, path)
        if kind == NESTED_STACK:
            return self._nested(logical_id, raw, properties_path)
        naming = {}
        for name in ("FifoQueue", "FifoTopic", "Path", NAME_PROPERTIES.get(kind, ("",))[0]):
            if name and name in raw:
                naming[name] = self.resolver.value(raw[name], (*properties_path, name))
        missing = _first_missing(naming)
        if missing is not None:  # reported already
            return Identity(missing)
        identity = identity_of(kind, logical_id, naming, self.place)
        if kind == LAYER:
            content = self._local_path(logical_id, "Content", raw.get("Content"), properties_path)
            if content is not None:
                self.layer_paths[str(identity.ref)] = content
        return identity

    def _make_resource(self, logical_id: str, kind: str, properties: dict[str, Any], path: tuple[str, ...]) -> Identity:
        identity = identity_of(kind, logical_id, properties, self.place)
        name = resource_name(kind, logical_id, properties, self.place)
        try:
            made = MAKERS[kind](self.target.client, name, properties, identity, self.place)
        except Exception as error:  # moto's refusal of a property: reported, the rest of the stack loads
            self.resolver.report(f"creating {kind} {name} failed: {_error_text(error)}", path)
            return identity
        arn = made.attributes.get("Arn") or made.attributes.get("TopicArn") or made.attributes.get("Id")
        url = made.attributes.get("QueueUrl")
        self._add(self.stack.resources, logical_id, LoadedResource(kind, name, arn, self.template.name, url))
        return made

    def _nested(self, logical_id: str, raw: dict[str, Any], path: tuple[str, ...]) -> Identity:
        child = self.template.nested.get(logical_id)
        if child is None:
            return Identity(self.resolver.report(f"the nested stack {logical_id}'s template is not in the input", path))
        parameters = self.resolver.value(raw.get("Parameters") or {}, (*path, "Parameters"))
        load = _TemplateLoad(self.loader, child, {key: str(value) for key, value in parameters.items()}, self.stack)
        outputs = load.run()
        return Identity(load.resolver.pseudo_parameters()["AWS::StackId"],
                        {f"Outputs.{key}": value for key, value in outputs.items()})

    def _exists(self, logical_id: str) -> bool:
        """Is the resource created: it has no `Condition`, or its condition is true."""
        condition = self.template.resources[logical_id].get("Condition")
        if not isinstance(condition, str):
            return True
        return self.resolver.condition(condition, ("Resources", logical_id, "Condition")) is True

    # -- the whole template --------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        """Make every resource, function and state machine; answer the Outputs' values."""
        resources = {logical_id: resource for logical_id, resource in self.template.resources.items()
                     if self._exists(logical_id)}
        for logical_id in resources:
            self.identity(logical_id)
        for logical_id, resource in resources.items():
            if resource.get("Type") == FUNCTION and not isinstance(self.identity(logical_id).ref, Missing):
                self._function(logical_id, resource)
        for logical_id, resource in resources.items():
            if isinstance(self.identity(logical_id).ref, Missing):
                continue
            if resource.get("Type") == STATE_MACHINE:
                self._state_machine(logical_id, resource)
            elif resource.get("Type") == ACTIVITY:
                self.target.create_activity(str(self.identity(logical_id).attributes["Name"]))
        outputs = self._outputs()
        for problem in self.resolver.unresolved:
            self.stack.unresolved.setdefault(problem.subject, []).append(problem)
        return outputs

    def _outputs(self) -> dict[str, Any]:
        values = {}
        for name, output in self.template.outputs.items():
            if not isinstance(output, dict):
                continue
            path = ("Outputs", name)
            if isinstance(output.get("Condition"), str) and self.resolver.condition(output["Condition"], path) is not True:
                continue
            values[name] = self.resolver.value(output.get("Value"), (*path, "Value"))
            export = output.get("Export")
            if isinstance(export, dict) and "Name" in export:
                export_name = self.resolver.value(export["Name"], (*path, "Export", "Name"))
                if not isinstance(export_name, Missing) and not isinstance(values[name], Missing):
                    self.loader.exports[str(export_name)] = values[name]
        return values

    # -- functions -----------------------------------------------------------------------------
    def _function(self, logical_id: str, resource: dict[str, Any]) -> None:
        path = ("Resources", logical_id, "Properties")
        properties = self.resolver.value(resource.get("Properties") or {}, path)
        identity = self.identity(logical_id)
        name, arn = str(identity.ref), str(identity.attributes["Arn"])
        runtime, handler = str(properties.get("Runtime", "")), str(properties.get("Handler", ""))
        served_by = self.target.function_fallback
        why = (f"its runtime {runtime or '(a container image)'} is not Python" if not runtime.startswith("python3")
               else "its code cannot be read")
        code = self._local_path(logical_id, "Code", properties.get("Code"), path) if runtime.startswith("python3") else None
        if code is not None:
            try:
                callable_ = self._python_handler(logical_id, code, properties)
                timeout = float(properties.get("Timeout", LAMBDA_DEFAULT_TIMEOUT))
                self.target.register_function(arn, callable_, timeout)
                served_by = PYTHON
            except (python_functions.FunctionImportError, ValueError) as error:
                why = str(error)
                self.resolver.report(f"function {name}: {why}", (*path, "Handler"))
        if served_by == NONE:
            log.warning("Lambda function %s (%s in stack %s) is not served: %s; a Task that calls it fails with "
                        "Lambda.ResourceNotFoundException (serve it with --lambda-endpoint or a mock configuration)",
                        name, logical_id, self.template.name, why)
        self._add(self.stack.functions, logical_id, LoadedFunction(
            arn, name=name, runtime=runtime or None, handler=handler or None, served_by=served_by,
            stack=self.template.name))

    def _python_handler(self, logical_id: str, code: Path, properties: dict[str, Any]) -> Any:
        layers = [self.layer_paths[str(arn)] for arn in properties.get("Layers") or [] if str(arn) in self.layer_paths]
        environment = (properties.get("Environment") or {}).get("Variables") or {}
        variables = {str(key): attribute_text(value) for key, value in environment.items()}
        variables.update({"AWS_LAMBDA_FUNCTION_NAME": str(self.identity(logical_id).ref),
                          "AWS_REGION": self.place.region, "AWS_DEFAULT_REGION": self.place.region})
        return python_functions.load_handler(code, str(properties.get("Handler", "")), layers=layers,
                                             variables=variables)

    def _local_path(self, logical_id: str, property_name: str, location: Any, path: tuple[str, ...]) -> Path | None:
        """The local file or directory a code, content or definition location stands for; a zip is unpacked."""
        found = self.template.local_paths.get((logical_id, property_name))
        if found is None and isinstance(location, str) and not location.startswith("s3://"):
            found = self.template.source.parent / location  # a local path, as `aws cloudformation package` takes
        if found is None and isinstance(location, dict):
            if isinstance(location.get("ZipFile"), str):
                return _inline_code(self.resolver.value(location["ZipFile"], (*path, property_name, "ZipFile")))
            key = location.get("S3Key", location.get("Key"))
            key = self.resolver.value(key, (*path, property_name, "Key")) if key is not None else None
            found = self.template.assets.get(str(key)) if isinstance(key, str) else None
        if found is None:
            self.resolver.report(f"{property_name} of {logical_id} is not a local file or directory, zip file or "
                                 "CDK asset (in S3, the emulator cannot read it)", (*path, property_name))
            return None
        if not found.exists():
            self.resolver.report(f"{property_name} of {logical_id}: {found} does not exist", (*path, property_name))
            return None
        return _unpacked(found) if found.is_file() and found.suffix == ".zip" else found

    # -- state machines ------------------------------------------------------------------------
    def _state_machine(self, logical_id: str, resource: dict[str, Any]) -> None:
        path = ("Resources", logical_id, "Properties")
        raw = resource.get("Properties") or {}
        properties = self.resolver.value({key: value for key, value in raw.items()
                                          if key not in ("Definition", "DefinitionString")}, path)
        definition, source = self._definition(logical_id, raw, properties, path)
        if definition is None or _first_missing(properties) is not None:
            return  # what is missing is reported already; CloudFormation would not create it either
        substitutions = properties.get("DefinitionSubstitutions") or {}
        for key, value in substitutions.items():
            definition = definition.replace("${" + str(key) + "}", attribute_text(value))
        identity = self.identity(logical_id)
        name, kind = str(identity.attributes["Name"]), str(properties.get("StateMachineType", "STANDARD"))
        request: dict[str, Any] = {
            "name": name, "definition": definition, "type": kind,
            "roleArn": str(properties.get("RoleArn") or f"arn:{self.place.partition}:iam::{self.place.account}:"
                           "role/sfn-emulator-stack"),
        }
        if isinstance(properties.get("LoggingConfiguration"), dict):
            request["loggingConfiguration"] = _camel(properties["LoggingConfiguration"])
        if isinstance(properties.get("TracingConfiguration"), dict):
            request["tracingConfiguration"] = _camel(properties["TracingConfiguration"])
        if isinstance(properties.get("Tags"), list):
            request["tags"] = [{"key": str(tag.get("Key")), "value": str(tag.get("Value"))}
                               for tag in properties["Tags"] if isinstance(tag, dict)]
        try:
            arn = self.target.create_state_machine(**request)
        except Exception as error:  # the control plane's refusal (InvalidDefinition, ...), reported, named
            self.resolver.report(f"CreateStateMachine {name} was refused: {_error_text(error)}", path)
            return
        self._add(self.stack.state_machines, logical_id, LoadedStateMachine(
            arn, name=name, type=kind, definition_source=source, stack=self.template.name))

    def _definition(self, logical_id: str, raw: dict[str, Any], properties: dict[str, Any],
                    path: tuple[str, ...]) -> tuple[str | None, str]:
        if "Definition" in raw or "DefinitionString" in raw:
            source = "Definition" if "Definition" in raw else "DefinitionString"
            value = self.resolver.value(raw[source], (*path, source))
            if _first_missing(value) is not None:  # reported already
                return None, source
            return (value if isinstance(value, str) else json.dumps(value)), source
        if "DefinitionS3Location" in raw:
            location = self._local_path(logical_id, "DefinitionS3Location", raw["DefinitionS3Location"], path)
            if location is None:  # reported
                return None, ""
            return _definition_text(location), str(location)
        self.resolver.report(f"{logical_id} has no Definition, DefinitionString or DefinitionS3Location", path)
        return None, ""

    # -- bookkeeping ---------------------------------------------------------------------------
    def _add(self, table: dict[str, Any], logical_id: str, record: Any) -> None:
        """Record under the logical id, or `Stack/LogicalId` where another loaded stack took it."""
        key = logical_id if logical_id not in table else f"{self.template.name}/{logical_id}"
        table[key] = record


def _first_missing(value: Any) -> Missing | None:
    if isinstance(value, Missing):
        return value
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return next((found for child in children if (found := _first_missing(child)) is not None), None)


def _definition_text(path: Path) -> str:
    """A definition file as JSON text (YAML files too, as SAM reads them)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        return json.dumps(yaml.safe_load(text))
    return text


def _camel(value: Any) -> Any:
    """CloudFormation's PascalCase keys as the API's camelCase (LoggingConfiguration -> loggingConfiguration)."""
    if isinstance(value, dict):
        return {key[:1].lower() + key[1:]: _camel(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_camel(item) for item in value]
    return value


def _error_text(error: Exception) -> str:
    response = getattr(error, "response", None)
    if isinstance(response, dict) and "Error" in response:
        return f"{response['Error'].get('Code')}: {response['Error'].get('Message')}"
    code, message = getattr(error, "code", None), getattr(error, "message", None)
    return f"{code}: {message}" if code and message else f"{type(error).__name__}: {error}"


_SCRATCH = Path(tempfile.gettempdir()) / "sfn-emulator-stacks"


def _unpacked(archive: Path) -> Path:
    """A zip's contents, unpacked once per archive content into a scratch directory."""
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:20]
    target = _SCRATCH / digest
    if not target.is_dir():
        partial = _SCRATCH / f"{digest}.{id(archive)}.partial"
        with zipfile.ZipFile(archive) as opened:
            opened.extractall(partial)
        try:
            partial.rename(target)
        except OSError:  # another process unpacked it first
            pass
    return target


def _inline_code(source: Any) -> Path:
    """A function's inline `ZipFile` code, written as index.py as CloudFormation writes it."""
    text = str(source)
    target = _SCRATCH / f"inline-{hashlib.sha256(text.encode()).hexdigest()[:20]}"
    target.mkdir(parents=True, exist_ok=True)
    (target / "index.py").write_text(text, encoding="utf-8")
    return target
