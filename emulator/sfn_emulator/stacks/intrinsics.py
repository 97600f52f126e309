"""CloudFormation's intrinsic functions, conditions, parameters and pseudo parameters, evaluated
over one template as CloudFormation evaluates them at deploy time.

What cannot be resolved (a missing parameter, an unknown resource, attribute or export, an unknown
intrinsic, a circular reference) is recorded once, where it was written, and stands in the result as
a `Missing` text naming it; intrinsics that receive a `Missing` pass it on without a second report."""

from __future__ import annotations

import base64
import json
import re
import uuid
from typing import Any, Callable, Mapping

from sfn_emulator.protocol.partitions import partition_for
from sfn_emulator.stacks.model import StackTemplate, Unresolved

Path = tuple[str, ...]


class Missing(str):
    """The stand-in for a value that could not be resolved (its text says what)."""


class NoValue:
    """`AWS::NoValue`: the property or list item is removed."""


NO_VALUE = NoValue()


class Unresolvable(Exception):
    """Raised inside an evaluation; recorded at the intrinsic that met it."""


class Identity:
    """What a resource answers to `Ref` and `Fn::GetAtt`."""

    def __init__(self, ref: Any, attributes: Mapping[str, Any] | None = None) -> None:
        self.ref = ref
        self.attributes = dict(attributes or {})


def url_suffix_of(region: str) -> str:
    return "amazonaws.com.cn" if region.startswith("cn-") else "amazonaws.com"


# What the Terraform reader writes for a value a plan does not know yet.
KNOWN_AFTER_APPLY = "SfnEmulator::KnownAfterApply"
_SUB_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_CONDITION_FUNCTIONS = ("Fn::Equals", "Fn::And", "Fn::Or", "Fn::Not", "Condition")


class Resolver:
    """Evaluates values of one template. `identity(logical_id)` answers a resource's Ref and
    attributes (the loader makes resources on demand through it); `exports` are the Outputs'
    Export names of the stacks loaded before."""

    def __init__(self, template: StackTemplate, *, parameters: Mapping[str, str], account: str, region: str,
                 identity: Callable[[str], Identity], exports: Mapping[str, Any]) -> None:
        self.template = template
        self.account = account
        self.region = region
        self.unresolved: list[Unresolved] = []
        self._identity = identity
        self._exports = exports
        self._overrides = dict(parameters)
        self._parameters: dict[str, Any] = {}
        self._conditions: dict[str, bool | Missing] = {}
        self._conditions_in_progress: list[str] = []
        self._reported: set[tuple[str, str]] = set()

    # -- what callers use ----------------------------------------------------------------------
    def value(self, node: Any, path: Path) -> Any:
        """`node` with every intrinsic evaluated; AWS::NoValue members removed."""
        return self._evaluate(node, path)

    def condition(self, name: str, path: Path) -> bool | Missing:
        """The value of the template's condition `name`."""
        if name in self._conditions:
            return self._conditions[name]
        if name in self._conditions_in_progress:
            cycle = " -> ".join([*self._conditions_in_progress[self._conditions_in_progress.index(name):], name])
            return self._missing(f"circular reference between conditions: {cycle}", path)
        if name not in self.template.conditions:
            return self._missing(f"condition {name!r} is not defined in Conditions", path)
        self._conditions_in_progress.append(name)
        try:
            result = self._truth(self.template.conditions[name], ("Conditions", name))
        finally:
            self._conditions_in_progress.pop()
        self._conditions[name] = result
        return result

    def report(self, what: str, path: Path) -> Missing:
        """Record `what` as unresolved at `path` (once per place) and answer its stand-in."""
        return self._missing(what, path)

    def pseudo_parameters(self) -> dict[str, Any]:
        stack_id = uuid.uuid5(uuid.NAMESPACE_URL, f"{self.account}/{self.region}/{self.template.name}")
        partition = partition_for(self.region)
        return {
            "AWS::AccountId": self.account, "AWS::Region": self.region, "AWS::Partition": partition,
            "AWS::StackName": self.template.name, "AWS::URLSuffix": url_suffix_of(self.region),
            "AWS::StackId": f"arn:{partition}:cloudformation:{self.region}:{self.account}:stack/"
                            f"{self.template.name}/{stack_id}",
            "AWS::NotificationARNs": [], "AWS::NoValue": NO_VALUE,
        }

    # -- evaluation ----------------------------------------------------------------------------
    def _missing(self, what: str, path: Path) -> Missing:
        key = (".".join(path), what)
        if key not in self._reported:
            self._reported.add(key)
            subject = path[1] if path[0] == "Resources" and len(path) > 1 else ".".join(path[:2])
            self.unresolved.append(Unresolved(what, self.template.where(path), subject))
        return Missing(f"<unresolved: {what}>")

    def _evaluate(self, node: Any, path: Path) -> Any:
        if isinstance(node, dict):
            if len(node) == 1:
                (key, argument), = node.items()
                if key == "Ref" or key.startswith("Fn::") or key == KNOWN_AFTER_APPLY:
                    try:
                        return self._intrinsic(key, argument, (*path, key))
                    except Unresolvable as problem:
                        return self._missing(str(problem), (*path, key))
            result = {}
            for key, value in node.items():
                evaluated = self._evaluate(value, (*path, str(key)))
                if evaluated is not NO_VALUE:
                    result[key] = evaluated
            return result
        if isinstance(node, list):
            items = (self._evaluate(value, (*path, str(index))) for index, value in enumerate(node))
            return [item for item in items if item is not NO_VALUE]
        return node

    def _intrinsic(self, name: str, argument: Any, path: Path) -> Any:
        if name == "Ref":
            return self._ref(argument, path)
        if name == KNOWN_AFTER_APPLY:
            raise Unresolvable(f"{argument} is known only after apply: load `terraform show -json` of the state")
        function = _FUNCTIONS.get(name)
        if function is None:
            if name == "Fn::Transform":
                macro = argument.get("Name") if isinstance(argument, dict) else argument
                raise Unresolvable(f"the macro {macro} (Fn::Transform) runs only in CloudFormation")
            if name in _CONDITION_FUNCTIONS:
                return self._truth({name: argument}, path)
            raise Unresolvable(f"unknown intrinsic function {name}")
        return function(self, argument, path)

    def _ref(self, name: Any, path: Path) -> Any:
        if not isinstance(name, str):
            raise Unresolvable("Ref takes the name of a parameter or resource")
        pseudo = self.pseudo_parameters()
        if name in pseudo:
            return pseudo[name]
        if name in self.template.parameters:
            return self._parameter(name, path)
        if name in self.template.resources:
            return self._identity(name).ref
        raise Unresolvable(f"Ref {name}: no parameter or resource of that name")

    def _parameter(self, name: str, path: Path) -> Any:
        if name not in self._parameters:
            spec = self.template.parameters[name] or {}
            raw = self._overrides.get(name, spec.get("Default") if isinstance(spec, dict) else None)
            kind = str(spec.get("Type", "String")) if isinstance(spec, dict) else "String"
            if raw is None:
                value: Any = self._missing(f"parameter {name} has no value: give it with --stack-parameter "
                                           f"{name}=VALUE", ("Parameters", name))
            elif kind.startswith("AWS::SSM::Parameter::Value") and name not in self._overrides:
                value = self._missing(f"parameter {name} ({kind}) is read from SSM at deploy time: give its "
                                      f"value with --stack-parameter {name}=VALUE", ("Parameters", name))
            elif kind == "CommaDelimitedList" or kind.startswith("List<"):
                value = raw if isinstance(raw, list) else [item.strip() for item in str(raw).split(",")]
            else:
                value = str(raw) if not isinstance(raw, str) else raw
            allowed = spec.get("AllowedValues") if isinstance(spec, dict) else None
            if allowed and not isinstance(value, Missing) and value not in [str(item) for item in allowed]:
                value = self._missing(f"parameter {name}: {value!r} is not one of its AllowedValues "
                                      f"{', '.join(map(str, allowed))}", ("Parameters", name))
            self._parameters[name] = value
        return self._parameters[name]

    def get_att(self, logical_id: str, attribute: str, path: Path) -> Any:
        if logical_id not in self.template.resources:
            raise Unresolvable(f"Fn::GetAtt {logical_id}.{attribute}: no resource {logical_id}")
        identity = self._identity(logical_id)
        if isinstance(identity.ref, Missing):
            return identity.ref
        if attribute not in identity.attributes:
            kind = self.template.resources[logical_id].get("Type")
            raise Unresolvable(f"Fn::GetAtt {logical_id}.{attribute}: the emulator does not know the attribute "
                               f"{attribute} of {kind}")
        return identity.attributes[attribute]

    def _truth(self, node: Any, path: Path) -> bool | Missing:
        if isinstance(node, dict) and len(node) == 1:
            (name, argument), = node.items()
            if name == "Condition":
                return self.condition(str(argument), path)
            if name == "Fn::Equals" and isinstance(argument, list) and len(argument) == 2:
                left, right = (self._evaluate(item, (*path, name, str(index))) for index, item in enumerate(argument))
                if isinstance(left, Missing) or isinstance(right, Missing):
                    return left if isinstance(left, Missing) else right
                return _comparable(left) == _comparable(right)
            if name in ("Fn::And", "Fn::Or", "Fn::Not") and isinstance(argument, list):
                values = [self._truth(item, (*path, name, str(index))) for index, item in enumerate(argument)]
                missing = next((value for value in values if isinstance(value, Missing)), None)
                if missing is not None:
                    return missing
                if name == "Fn::Not":
                    return not values[0] if len(values) == 1 else self._missing("Fn::Not takes one condition", path)
                return all(values) if name == "Fn::And" else any(values)
        return self._missing(f"not a condition: {json.dumps(node, default=str)[:80]}", path)


def _comparable(value: Any) -> Any:
    return str(value).lower() if isinstance(value, bool) else str(value) if isinstance(value, (int, float)) else value


def _arguments(resolver: Resolver, name: str, argument: Any, path: Path, count: tuple[int, ...]) -> list[Any]:
    if not isinstance(argument, list) or len(argument) not in count:
        raise Unresolvable(f"{name} takes a list of {' or '.join(map(str, count))} arguments")
    return [resolver.value(item, (*path, str(index))) for index, item in enumerate(argument)]


def _first_missing(*values: Any) -> Missing | None:
    for value in values:
        if isinstance(value, Missing):
            return value
        if isinstance(value, list):
            found = _first_missing(*value)
            if found is not None:
                return found
    return None


def _get_att(resolver: Resolver, argument: Any, path: Path) -> Any:
    if isinstance(argument, str):
        logical_id, _, attribute = argument.partition(".")
    elif isinstance(argument, list) and len(argument) == 2:
        logical_id = argument[0]
        attribute = resolver.value(argument[1], (*path, "1"))
    else:
        raise Unresolvable("Fn::GetAtt takes [logicalId, attribute] or 'logicalId.attribute'")
    if isinstance(attribute, Missing):
        return attribute
    return resolver.get_att(str(logical_id), str(attribute), path)


def _sub(resolver: Resolver, argument: Any, path: Path) -> Any:
    if isinstance(argument, list) and len(argument) == 2 and isinstance(argument[1], dict):
        text, variables = argument[0], resolver.value(argument[1], (*path, "1"))
    elif isinstance(argument, str):
        text, variables = argument, {}
    else:
        raise Unresolvable("Fn::Sub takes a string, or [string, {variable: value}]")
    if not isinstance(text, str):
        raise Unresolvable("Fn::Sub's first argument must be a string")

    missing: list[Missing] = [value for value in variables.values() if isinstance(value, Missing)] \
        if isinstance(variables, dict) else []

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("!"):
            return "${" + name[1:] + "}"
        name = name.strip()
        if name in variables:
            value = variables[name]
        elif "." in name and name.split(".", 1)[0] in resolver.template.resources:
            logical_id, attribute = name.split(".", 1)
            value = resolver.get_att(logical_id, attribute, path)
        else:
            value = resolver._ref(name, path)
        if isinstance(value, list) or isinstance(value, dict):
            raise Unresolvable(f"Fn::Sub: ${{{name}}} is not a string")
        if isinstance(value, Missing):
            missing.append(value)
        return str(value)

    result = _SUB_VARIABLE.sub(replace, text)
    return missing[0] if missing else result


def _join(resolver: Resolver, argument: Any, path: Path) -> Any:
    delimiter, items = _arguments(resolver, "Fn::Join", argument, path, (2,))
    missing = _first_missing(delimiter, items)
    if missing is not None:
        return missing
    if not isinstance(items, list):
        raise Unresolvable("Fn::Join's second argument must be a list")
    return str(delimiter).join(_text(item) for item in items)


def _text(value: Any) -> str:
    if isinstance(value, (dict, list)):
        raise Unresolvable("Fn::Join joins strings, not objects or lists")
    return str(value).lower() if isinstance(value, bool) else str(value)


def _select(resolver: Resolver, argument: Any, path: Path) -> Any:
    index, items = _arguments(resolver, "Fn::Select", argument, path, (2,))
    missing = _first_missing(index, items)
    if missing is not None:
        return missing
    try:
        return items[int(index)]
    except (ValueError, TypeError):
        raise Unresolvable(f"Fn::Select: {index!r} is not an index of a list") from None
    except IndexError:
        raise Unresolvable(f"Fn::Select: index {index} is out of the list's {len(items)} items") from None


def _split(resolver: Resolver, argument: Any, path: Path) -> Any:
    delimiter, text = _arguments(resolver, "Fn::Split", argument, path, (2,))
    missing = _first_missing(delimiter, text)
    if missing is not None:
        return missing
    if not isinstance(text, str) or not isinstance(delimiter, str):
        raise Unresolvable("Fn::Split takes a delimiter and a string")
    return text.split(delimiter)


def _if(resolver: Resolver, argument: Any, path: Path) -> Any:
    if not isinstance(argument, list) or len(argument) != 3 or not isinstance(argument[0], str):
        raise Unresolvable("Fn::If takes [condition name, value if true, value if false]")
    truth = resolver.condition(argument[0], (*path, "0"))
    if isinstance(truth, Missing):
        return truth
    chosen = 1 if truth else 2
    return resolver.value(argument[chosen], (*path, str(chosen)))


def _find_in_map(resolver: Resolver, argument: Any, path: Path) -> Any:
    names = _arguments(resolver, "Fn::FindInMap", argument, path, (3, 4))
    missing = _first_missing(*names[:3])
    if missing is not None:
        return missing
    default = names[3].get("DefaultValue") if len(names) == 4 and isinstance(names[3], dict) else None
    map_name, top, second = (str(name) for name in names[:3])
    try:
        return resolver.template.mappings[map_name][top][second]
    except (KeyError, TypeError):
        if default is not None:
            return default
        raise Unresolvable(f"Fn::FindInMap: Mappings has no {map_name}.{top}.{second}") from None


def _import_value(resolver: Resolver, argument: Any, path: Path) -> Any:
    name = resolver.value(argument, path)
    if isinstance(name, Missing):
        return name
    if name not in resolver._exports:
        raise Unresolvable(f"Fn::ImportValue {name}: no loaded stack exports it")
    return resolver._exports[name]


def _base64(resolver: Resolver, argument: Any, path: Path) -> Any:
    text = resolver.value(argument, path)
    if isinstance(text, Missing):
        return text
    if not isinstance(text, str):
        raise Unresolvable("Fn::Base64 takes a string")
    return base64.b64encode(text.encode()).decode("ascii")


def _get_azs(resolver: Resolver, argument: Any, path: Path) -> Any:
    """Three zones, a, b and c, of the region (or of the stack's region for "")."""
    region = resolver.value(argument, path) or resolver.region
    if isinstance(region, Missing):
        return region
    return [f"{region}{letter}" for letter in "abc"]


_FUNCTIONS: dict[str, Callable[[Resolver, Any, Path], Any]] = {
    "Fn::GetAtt": _get_att, "Fn::Sub": _sub, "Fn::Join": _join, "Fn::Select": _select, "Fn::Split": _split,
    "Fn::If": _if, "Fn::FindInMap": _find_in_map, "Fn::ImportValue": _import_value, "Fn::Base64": _base64,
    "Fn::GetAZs": _get_azs,
}
