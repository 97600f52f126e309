"""Parsing one state: the fields every state has, then each type's own (Map's are in `map_fields`).

Each type's reader checks its type's own fields and returns a constructor taking the common fields, or
None. `value` is the state's JSON object. The fields the table describes (`field_table`) are read by
its reader (`field_reading`), in the table's order, into the model's attributes."""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

from sfn_emulator.asl import model
from sfn_emulator.asl.choice import ChoiceRuleError, compile_choice_rule
from sfn_emulator.asl.jsonata_expressions import (
    BOOLEAN,
    JsonataCondition,
    JsonataLiteral,
    JsonataSyntaxError,
    compile_typed_jsonata,
    is_jsonata,
)
from sfn_emulator.asl.model import (
    JSONATA,
    JSONPATH,
    ChoiceBranch,
    ChoiceState,
    FailState,
    ParallelState,
    PassState,
    State,
    StateMachine,
    SucceedState,
    TaskState,
    WaitState,
)
from sfn_emulator.asl.parsing.error_handling import ErrorHandlingFields
from sfn_emulator.asl.parsing.expressions import dollar_keys, looks_dynamic
from sfn_emulator.asl.parsing.field_reading import TableFields
from sfn_emulator.asl.parsing.field_table import BRANCH
from sfn_emulator.asl.parsing.map_fields import MachineReader, MapFields
from sfn_emulator.asl.parsing.recording import DiagnosticRecorder
from sfn_emulator.asl.parsing.resources import ResourceFields, is_http_task
from sfn_emulator.asl.parsing.rules import (
    ABSENT,
    ASSIGNING_TYPES,
    COMMON_FIELDS,
    EMPTY,
    JSONATA_RULE_FIELDS,
    QUERY_LANGUAGES,
    STATE_TYPES,
    TERMINAL_TYPES,
    WAIT_DURATION_FIELDS,
    expected_type,
    listed,
)
from sfn_emulator.asl.paths import compile_path
from sfn_emulator.asl.state_io import joined
from sfn_emulator.asl.task_targets import parse_resource
from sfn_emulator.asl.validation import NO_PATH, PASS_RESULT_IS_STATIC, Scope, Transition

TypeReader = Callable[[str, dict, str, Scope], "Callable[..., State] | None"]


class StateFields:
    """One state of any type, with its language's fields; composed of the readers of one parse."""

    def __init__(self, recorder: DiagnosticRecorder, table_fields: TableFields, machine: MachineReader) -> None:
        self.recorder = recorder
        self.table_fields = table_fields
        self.expressions = table_fields.expressions
        self.error_handling = ErrorHandlingFields(recorder, self.expressions, table_fields)
        self.resources = ResourceFields(recorder)
        self.machine = machine
        map_fields = MapFields(recorder, self.expressions, table_fields, self.error_handling, machine)
        self.readers: dict[str, TypeReader] = {
            "Task": self.task, "Wait": self.wait, "Pass": self.pass_state, "Succeed": self.succeed,
            "Fail": self.fail, "Choice": self.choice, "Parallel": self.parallel, "Map": map_fields.read,
        }

    def state(self, name: str, value: Any, location: str, scope: Scope, machine_language: str) -> State | None:
        recorder, expressions, table = self.recorder, self.expressions, self.table_fields.table
        errors_before = recorder.error_count()
        here = location or "/"
        if not isinstance(value, dict):
            recorder.error(expected_type("OBJECT"), here)
            return None
        state_type = value.get("Type")
        if state_type not in STATE_TYPES:
            if "Type" not in value:
                recorder.error("These fields are required: [Type]", here)
            else:
                recorder.error(f"The field 'Type' should have one of these values: {listed(STATE_TYPES)}", f"{location}/Type")
            self.record_flow_of_unchecked_state(name, value, location, scope)
            return None

        query_language = self.query_language(value, location, inherited=machine_language) or JSONPATH
        recorder.language = query_language
        assigning = {"Assign"} if state_type in ASSIGNING_TYPES else set()
        if query_language == JSONATA:
            misplaced = [field for field in table.only_in(JSONPATH) if field in value]
            other_language = "JSONPath"
        else:
            misplaced = [field for field in table.only_in(JSONATA, state_type) if field in value]
            other_language = "JSONata"
        for field in misplaced:
            recorder.error(
                f"The QueryLanguage is set to '{query_language}', but field '{field}' is only supported "
                f"for the '{other_language}' QueryLanguage",
                here,
            )
        allowed = table.fields_of(state_type, query_language)
        recorder.unknown_fields(value, COMMON_FIELDS | allowed | assigning | set(misplaced), here)

        common = {
            "name": name,
            "type": state_type,
            "query_language": query_language,
            "comment": recorder.typed(value, "Comment", "STRING", location),
            "assign": expressions.assign(value, location),
        }
        if query_language == JSONATA:
            common["output"] = expressions.jsonata_template(value, "Output", location)
        else:
            common["input_path"] = expressions.path(value, "InputPath", location, compile_path)
            common["output_path"] = expressions.path(value, "OutputPath", location, compile_path)
        if state_type in TERMINAL_TYPES:
            scope.terminal_states.add(name)
        elif state_type != "Choice":
            common.update(self.next_or_end(name, value, location, scope))

        specific = self.readers[state_type](name, value, location, scope)
        recorder.language = query_language  # again: a Parallel's or Map's nested states set their own
        if recorder.error_count() > errors_before or specific is None:
            return None
        return specific(**common)

    def query_language(self, value: dict, location: str, *, inherited: str | None) -> str | None:
        """The declared QueryLanguage (checked), or `inherited` when there is none."""
        declared = value.get("QueryLanguage", ABSENT)
        if declared is ABSENT:
            return inherited
        here = f"{location}/QueryLanguage"
        if not isinstance(declared, str):
            self.recorder.error(expected_type("STRING"), here)
            return inherited
        if declared not in QUERY_LANGUAGES:
            self.recorder.error(f"Value should be one of the following: {listed(QUERY_LANGUAGES)}", here)
            return inherited
        if declared == JSONPATH and inherited == JSONATA:
            self.recorder.error(
                "'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine", location
            )
        return declared

    def record_flow_of_unchecked_state(self, name: str, value: dict, location: str, scope: Scope) -> None:
        """Keep a state this parser does not check (unknown type, JSONata) in the transition graph,
        so that its own diagnostic is not echoed as missing targets or unreachable states."""
        targets = [(value.get("Next"), f"{location}/Next"), (value.get("Default"), f"{location}/Default")]
        for field in ("Choices", "Catch"):
            items = value.get(field)
            if isinstance(items, list):
                targets.extend(
                    (item.get("Next"), f"{location}/{field}[{index}]/Next")
                    for index, item in enumerate(items)
                    if isinstance(item, dict)
                )
        scope.transitions.extend(
            Transition(name, target, where) for target, where in targets if isinstance(target, str)
        )
        if value.get("End") is True or value.get("Type") in TERMINAL_TYPES:
            scope.terminal_states.add(name)

    def next_or_end(self, name: str, value: dict, location: str, scope: Scope) -> dict[str, Any]:
        next_state = self.recorder.typed(value, "Next", "STRING", location)
        end = self.recorder.typed(value, "End", "BOOLEAN", location)
        if (next_state is not None) == (end is True):
            self.recorder.error("Exactly one of these fields must be present: [Next, End]", location or "/")
        if isinstance(next_state, str):
            scope.transitions.append(Transition(name, next_state, f"{location}/Next"))
        if end is True:
            scope.terminal_states.add(name)
        return {"next": next_state, "end": end is True}

    # Each reader below checks its type's own fields and returns a constructor taking the common
    # fields, or None. `value` is the state's JSON object.

    def pass_state(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        if self.recorder.language == JSONATA:
            return joined(PassState)
        parameters = self.expressions.template(value, "Parameters", location)
        result_path = self.expressions.result_path(value, location)
        has_result = "Result" in value
        if has_result and any(True for _ in dollar_keys(value["Result"])):
            self.recorder.warning(
                PASS_RESULT_IS_STATIC,
                "The 'Result' of a Pass state is static: its fields ending in '.$' are not evaluated",
                f"{location}/Result",
            )
        return lambda **common: joined(PassState)(
            **common, parameters=parameters, result=model.Constant(value["Result"]) if has_result else None,
            result_path=result_path,
        )

    def task(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        recorder, expressions = self.recorder, self.expressions
        resource = recorder.typed(value, "Resource", "STRING", location)
        if "Resource" not in value:
            recorder.error("These fields are required: [Resource]", location or "/")
        elif isinstance(resource, str):
            self.resources.check_resource(resource, f"{location}/Resource")
        parameters = expressions.arguments_or_parameters(value, location)
        if isinstance(resource, str) and is_http_task(resource):
            self.resources.http_task_parameters(value, location)
        result_selector = expressions.template(value, "ResultSelector", location)
        credentials = expressions.credentials(value, location)
        result_path = expressions.result_path(value, location)
        retry = self.error_handling.retriers(value, location)
        catch = self.error_handling.catchers(name, value, location, scope)
        table_fields = self.table_fields.read("Task", value, location, partial(self.heartbeat_within_timeout, location))
        return lambda **common: joined(TaskState)(
            **common,
            **table_fields,
            resource=resource,
            target=parse_resource(resource),
            parameters=parameters,
            result_selector=result_selector,
            result_path=result_path,
            retry=retry,
            catch=catch,
            credentials=credentials,
        )

    def heartbeat_within_timeout(self, location: str, literals: dict[str, Any]) -> None:
        timeout, heartbeat = literals.get("timeout_seconds"), literals.get("heartbeat_seconds")
        if timeout is not None and heartbeat is not None and heartbeat >= timeout:
            self.recorder.error(
                "The value for the field 'HeartbeatSeconds' must be smaller than the value for the field 'TimeoutSeconds'",
                f"{location}/HeartbeatSeconds",
            )

    def choice(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        default = self.recorder.typed(value, "Default", "STRING", location)
        if isinstance(default, str):
            scope.transitions.append(Transition(name, default, f"{location}/Default"))
        if "Choices" not in value:
            self.recorder.error("These fields are required: [Choices]", location or "/")
            return None
        rules = self.recorder.typed(value, "Choices", "ARRAY", location)
        if not isinstance(rules, list):
            return None
        if not rules:
            self.recorder.error(EMPTY, f"{location}/Choices")
        branches = [self.choice_branch(name, rule, f"{location}/Choices[{index}]", scope) for index, rule in enumerate(rules)]
        if any(branch is None for branch in branches):
            return None
        return lambda **common: joined(ChoiceState)(**common, choices=tuple(branches), default=default)

    def choice_branch(self, name: str, rule: Any, location: str, scope: Scope) -> ChoiceBranch | None:
        """A top-level Choice rule: its condition (JSONata `Condition`, or a JSONPath rule compiled by
        `asl.choice`), `Next`, and the `Assign` (and in JSONata `Output`) applied when it matches."""
        recorder = self.recorder
        if not isinstance(rule, dict):
            recorder.error(expected_type("OBJECT"), location)
            return None
        next_state = recorder.typed(rule, "Next", "STRING", location)
        if "Next" not in rule:
            recorder.error("These fields are required: [Next]", location)
        elif isinstance(next_state, str):
            scope.transitions.append(Transition(name, next_state, f"{location}/Next"))
        comment = recorder.typed(rule, "Comment", "STRING", location)
        assign = self.expressions.assign(rule, location)
        output = None
        if recorder.language == JSONATA:
            recorder.unknown_fields(rule, {"Condition", "Next", "Comment", "Assign", "Output"}, location)
            output = self.expressions.jsonata_template(rule, "Output", location)
            condition = self.jsonata_condition(rule, location)
            if condition is None:
                return None
        else:
            jsonata_only = [field for field in JSONATA_RULE_FIELDS if field in rule]
            for field in jsonata_only:
                recorder.error(f"The QueryLanguage is set to 'JSONPath', but field '{field}' is only supported "
                               "for the 'JSONata' QueryLanguage", location)
            if jsonata_only:
                return None
            condition_fields = {key: item for key, item in rule.items() if key not in ("Next", "Comment", "Assign")}
            try:
                condition = compile_choice_rule(condition_fields, location=location)
            except ChoiceRuleError as problem:
                recorder.error(problem.message, problem.location)
                return None
        if not isinstance(next_state, str):
            return None
        return ChoiceBranch(condition=condition, next=next_state, assign=assign, output=output, comment=comment)

    def jsonata_condition(self, rule: dict, location: str) -> JsonataCondition | None:
        """A JSONata Choice rule's Condition: an expression that must evaluate to a boolean."""
        if "Condition" not in rule:
            self.recorder.error("These fields are required: [Condition]", location)
            return None
        text = rule["Condition"]
        if isinstance(text, bool):
            return JsonataCondition(JsonataLiteral(text))
        if not is_jsonata(text):
            self.recorder.error(
                "The value for the field 'Condition' must be a boolean or a JSONata expression: '{% ... %}'",
                f"{location}/Condition",
            )
            return None
        try:
            return JsonataCondition(compile_typed_jsonata(text, "Condition", BOOLEAN))
        except JsonataSyntaxError as problem:
            self.expressions.jsonata_refused(problem, location)
            return None

    def wait(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        present = [field for field in WAIT_DURATION_FIELDS if field in value]
        if len(present) != 1:
            self.recorder.error(
                f"Exactly one of these fields must be present: {listed(WAIT_DURATION_FIELDS)}", location or "/"
            )
        table_fields = self.table_fields.read("Wait", value, location)
        return lambda **common: joined(WaitState)(**common, **table_fields)

    def succeed(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        return joined(SucceedState)

    def fail(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        table_fields = self.table_fields.read("Fail", value, location, partial(self.literal_looking_dynamic, location))
        return lambda **common: joined(FailState)(**common, **table_fields)

    def literal_looking_dynamic(self, location: str, literals: dict[str, Any]) -> None:
        """Warn of a Fail's Error or Cause that looks like a path or an intrinsic call but is a string."""
        for field in ("Error", "Cause"):
            if self.recorder.language == JSONPATH and looks_dynamic(literals.get(field.lower())):
                self.recorder.warning(
                    NO_PATH,
                    f"The field '{field}' looks like a JSONPath or an intrinsic function but its name does not end "
                    f"with 'Path', so it is taken as a string: use '{field}Path'",
                    f"{location}/{field}",
                )

    def parallel(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        recorder, expressions = self.recorder, self.expressions
        language = recorder.language  # the branches' states change it
        branches: list[StateMachine | None] = []
        if "Branches" not in value:
            recorder.error("These fields are required: [Branches]", location or "/")
        definitions = recorder.typed(value, "Branches", "ARRAY", location)
        if isinstance(definitions, list):
            if not definitions:
                recorder.error(EMPTY, f"{location}/Branches")
            branches = [
                self.machine(branch, f"{location}/Branches[{index}]", kind=BRANCH,
                             query_language=recorder.machine_language)
                for index, branch in enumerate(definitions)
            ]
        recorder.language = language
        parameters = expressions.arguments_or_parameters(value, location)
        result_selector = expressions.template(value, "ResultSelector", location)
        result_path = expressions.result_path(value, location)
        retry = self.error_handling.retriers(value, location)
        catch = self.error_handling.catchers(name, value, location, scope)
        return lambda **common: joined(ParallelState)(
            **common,
            branches=tuple(branches),
            parameters=parameters,
            result_selector=result_selector,
            result_path=result_path,
            retry=retry,
            catch=catch,
        )
