"""Parsing one state: the fields every state has, then each type's own (Map's are in `map_fields`).

Each builder checks its type's own fields and returns a constructor taking the common fields, or
None. `value` is the state's JSON object."""

from __future__ import annotations

from typing import Any, Callable

from sfn_emulator.asl import model
from sfn_emulator.asl.choice import ChoiceRuleError, compile_choice_rule
from sfn_emulator.asl.fields import (
    CAUSE_PATH,
    ERROR_PATH,
    HEARTBEAT_SECONDS_PATH,
    SECONDS_PATH,
    TIMEOUT_SECONDS_PATH,
    TIMESTAMP_PATH,
    Converted,
    capped_seconds,
    expression_timestamp,
    one_field,
)
from sfn_emulator.asl.jsonata_expressions import (
    BOOLEAN,
    NON_NEGATIVE_INTEGER,
    POSITIVE_INTEGER,
    STRING,
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
from sfn_emulator.asl.parsing.expressions import looks_dynamic, dollar_keys
from sfn_emulator.asl.parsing.map_fields import MapFields
from sfn_emulator.asl.parsing.resources import ResourceFields, is_http_task
from sfn_emulator.asl.parsing.rules import (
    STATE_TYPES,
    MAX_SECONDS,
    COMMON_FIELDS,
    ASSIGNING_TYPES,
    STATE_FIELDS,
    JSONATA_FIELDS,
    JSONATA_STATE_FIELDS,
    JSONATA_RULE_FIELDS,
    JSONPATH_ONLY_FIELDS,
    TERMINAL_TYPES,
    WAIT_DURATION_FIELDS,
    EMPTY,
    listed,
    expected_type,
)
from sfn_emulator.asl.paths import compile_path, compile_reference_path
from sfn_emulator.asl.state_io import joined
from sfn_emulator.asl.timestamps import NOT_A_TIMESTAMP, is_timestamp, parse_timestamp
from sfn_emulator.asl.validation import NO_PATH, PASS_RESULT_IS_STATIC, Scope, Transition


class StateFields(MapFields, ResourceFields):
    """One state of any type, with its language's fields."""

    # -- states ---------------------------------------------------------------------------------

    def state(self, name: str, value: Any, location: str, scope: Scope, machine_language: str) -> State | None:
        errors_before = self.error_count()
        here = location or "/"
        if not isinstance(value, dict):
            self.error(expected_type("OBJECT"), here)
            return None
        state_type = value.get("Type")
        if state_type not in STATE_TYPES:
            if "Type" not in value:
                self.error("These fields are required: [Type]", here)
            else:
                self.error(f"The field 'Type' should have one of these values: {listed(STATE_TYPES)}", f"{location}/Type")
            self.record_flow_of_unchecked_state(name, value, location, scope)
            return None

        query_language = self.query_language(value, location, inherited=machine_language) or JSONPATH
        self.language = query_language
        assigning = {"Assign"} if state_type in ASSIGNING_TYPES else set()
        if query_language == JSONATA:
            misplaced = [field for field in JSONPATH_ONLY_FIELDS if field in value]
            allowed = JSONATA_STATE_FIELDS[state_type]
            other_language = "JSONPath"
        else:
            misplaced = [field for field in JSONATA_FIELDS[state_type] if field in value]
            allowed = STATE_FIELDS[state_type]
            other_language = "JSONata"
        for field in misplaced:
            self.error(
                f"The QueryLanguage is set to '{query_language}', but field '{field}' is only supported "
                f"for the '{other_language}' QueryLanguage",
                here,
            )
        self.unknown_fields(value, COMMON_FIELDS | allowed | assigning | set(misplaced), here)

        common = {
            "name": name,
            "type": state_type,
            "query_language": query_language,
            "comment": self.typed(value, "Comment", "STRING", location),
            "assign": self.assign(value, location),
        }
        if query_language == JSONATA:
            common["output"] = self.jsonata_template(value, "Output", location)
        else:
            common["input_path"] = self.path(value, "InputPath", location, compile_path)
            common["output_path"] = self.path(value, "OutputPath", location, compile_path)
        if state_type in TERMINAL_TYPES:
            scope.terminal_states.add(name)
        elif state_type != "Choice":
            common.update(self.next_or_end(name, value, location, scope))

        build = getattr(self, f"_{state_type.lower()}")
        specific = build(name, value, location, scope)
        self.language = query_language  # again: a Parallel's or Map's nested states set their own
        if self.error_count() > errors_before or specific is None:
            return None
        return specific(**common)

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
        next_state = self.typed(value, "Next", "STRING", location)
        end = self.typed(value, "End", "BOOLEAN", location)
        if (next_state is not None) == (end is True):
            self.error("Exactly one of these fields must be present: [Next, End]", location or "/")
        if isinstance(next_state, str):
            scope.transitions.append(Transition(name, next_state, f"{location}/Next"))
        if end is True:
            scope.terminal_states.add(name)
        return {"next": next_state, "end": end is True}

    # Each builder below checks its type's own fields and returns a constructor taking the common
    # fields, or None. `value` is the state's JSON object.

    def _pass(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        if self.language == JSONATA:
            return joined(PassState)
        parameters = self.template(value, "Parameters", location)
        result_path = self.result_path(value, location)
        has_result = "Result" in value
        if has_result and any(True for _ in dollar_keys(value["Result"])):
            self.warning(
                PASS_RESULT_IS_STATIC,
                "The 'Result' of a Pass state is static: its fields ending in '.$' are not evaluated",
                f"{location}/Result",
            )
        return lambda **common: joined(PassState)(
            **common, parameters=parameters, result=model.Constant(value["Result"]) if has_result else None,
            result_path=result_path,
        )

    def _task(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        resource = self.typed(value, "Resource", "STRING", location)
        if "Resource" not in value:
            self.error("These fields are required: [Resource]", location or "/")
        elif isinstance(resource, str):
            self.check_resource(resource, f"{location}/Resource")
        parameters = self.arguments_or_parameters(value, location)
        if isinstance(resource, str) and is_http_task(resource):
            self.http_task_parameters(value, location)
        result_selector = self.template(value, "ResultSelector", location)
        credentials = self.credentials(value, location)
        result_path = self.result_path(value, location)
        retry = self.retriers(value, location)
        catch = self.catchers(name, value, location, scope)
        self.at_most_one(value, "Task", ("TimeoutSeconds", "TimeoutSecondsPath"), location)
        self.at_most_one(value, "Task", ("HeartbeatSeconds", "HeartbeatSecondsPath"), location)
        timeout_seconds_expression = self.jsonata_field(value, "TimeoutSeconds", location, POSITIVE_INTEGER)
        heartbeat_seconds_expression = self.jsonata_field(value, "HeartbeatSeconds", location, POSITIVE_INTEGER)
        timeout_seconds = heartbeat_seconds = None
        if timeout_seconds_expression is None:
            timeout_seconds = self.integer(value, "TimeoutSeconds", location, minimum=1, maximum=MAX_SECONDS)
        if heartbeat_seconds_expression is None:
            heartbeat_seconds = self.integer(value, "HeartbeatSeconds", location, minimum=1, maximum=MAX_SECONDS)
        if isinstance(timeout_seconds, int) and isinstance(heartbeat_seconds, int) and heartbeat_seconds >= timeout_seconds:
            self.error(
                "The value for the field 'HeartbeatSeconds' must be smaller than the value for the field 'TimeoutSeconds'",
                f"{location}/HeartbeatSeconds",
            )
        timeout_seconds_path = self.path(value, "TimeoutSecondsPath", location, compile_reference_path, nullable=False)
        heartbeat_seconds_path = self.path(value, "HeartbeatSecondsPath", location, compile_reference_path, nullable=False)
        return lambda **common: joined(TaskState)(
            **common,
            resource=resource,
            parameters=parameters,
            result_selector=result_selector,
            result_path=result_path,
            retry=retry,
            catch=catch,
            timeout_seconds=one_field(timeout_seconds, timeout_seconds_path, timeout_seconds_expression,
                                      TIMEOUT_SECONDS_PATH),
            heartbeat_seconds=one_field(heartbeat_seconds, heartbeat_seconds_path, heartbeat_seconds_expression,
                                        HEARTBEAT_SECONDS_PATH),
            credentials=credentials,
        )

    def _choice(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        default = self.typed(value, "Default", "STRING", location)
        if isinstance(default, str):
            scope.transitions.append(Transition(name, default, f"{location}/Default"))
        if "Choices" not in value:
            self.error("These fields are required: [Choices]", location or "/")
            return None
        rules = self.typed(value, "Choices", "ARRAY", location)
        if not isinstance(rules, list):
            return None
        if not rules:
            self.error(EMPTY, f"{location}/Choices")
        branches = [self.choice_branch(name, rule, f"{location}/Choices[{index}]", scope) for index, rule in enumerate(rules)]
        if any(branch is None for branch in branches):
            return None
        return lambda **common: joined(ChoiceState)(**common, choices=tuple(branches), default=default)

    def choice_branch(self, name: str, rule: Any, location: str, scope: Scope) -> ChoiceBranch | None:
        """A top-level Choice rule: its condition (JSONata `Condition`, or a JSONPath rule compiled by
        `asl.choice`), `Next`, and the `Assign` (and in JSONata `Output`) applied when it matches."""
        if not isinstance(rule, dict):
            self.error(expected_type("OBJECT"), location)
            return None
        next_state = self.typed(rule, "Next", "STRING", location)
        if "Next" not in rule:
            self.error("These fields are required: [Next]", location)
        elif isinstance(next_state, str):
            scope.transitions.append(Transition(name, next_state, f"{location}/Next"))
        comment = self.typed(rule, "Comment", "STRING", location)
        assign = self.assign(rule, location)
        output = None
        if self.language == JSONATA:
            self.unknown_fields(rule, {"Condition", "Next", "Comment", "Assign", "Output"}, location)
            output = self.jsonata_template(rule, "Output", location)
            condition = self.jsonata_condition(rule, location)
            if condition is None:
                return None
        else:
            jsonata_only = [field for field in JSONATA_RULE_FIELDS if field in rule]
            for field in jsonata_only:
                self.error(f"The QueryLanguage is set to 'JSONPath', but field '{field}' is only supported "
                           "for the 'JSONata' QueryLanguage", location)
            if jsonata_only:
                return None
            condition_fields = {key: item for key, item in rule.items() if key not in ("Next", "Comment", "Assign")}
            try:
                condition = compile_choice_rule(condition_fields, location=location)
            except ChoiceRuleError as problem:
                self.error(problem.message, problem.location)
                return None
        if not isinstance(next_state, str):
            return None
        return ChoiceBranch(condition=condition, next=next_state, assign=assign, output=output, comment=comment)

    def jsonata_condition(self, rule: dict, location: str) -> JsonataCondition | None:
        """A JSONata Choice rule's Condition: an expression that must evaluate to a boolean."""
        if "Condition" not in rule:
            self.error("These fields are required: [Condition]", location)
            return None
        text = rule["Condition"]
        if isinstance(text, bool):
            return JsonataCondition(JsonataLiteral(text))
        if not is_jsonata(text):
            self.error("The value for the field 'Condition' must be a boolean or a JSONata expression: '{% ... %}'",
                       f"{location}/Condition")
            return None
        try:
            return JsonataCondition(compile_typed_jsonata(text, "Condition", BOOLEAN))
        except JsonataSyntaxError as problem:
            self.jsonata_refused(problem, location)
            return None

    def _wait(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        present = [field for field in WAIT_DURATION_FIELDS if field in value]
        if len(present) != 1:
            self.error(f"Exactly one of these fields must be present: {listed(WAIT_DURATION_FIELDS)}", location or "/")
        seconds_expression = self.jsonata_field(value, "Seconds", location, NON_NEGATIVE_INTEGER)
        timestamp_expression = self.jsonata_field(value, "Timestamp", location, STRING)
        seconds = timestamp = None
        if seconds_expression is None:
            seconds = self.integer(value, "Seconds", location, minimum=0, maximum=MAX_SECONDS)
        if timestamp_expression is None:
            timestamp = self.typed(value, "Timestamp", "STRING", location)
        if isinstance(timestamp, str) and not is_timestamp(timestamp):
            self.first_error(NOT_A_TIMESTAMP, f"{location}/Timestamp")
        seconds_path = self.path(value, "SecondsPath", location, compile_reference_path, nullable=False)
        timestamp_path = self.path(value, "TimestampPath", location, compile_reference_path, nullable=False)
        if seconds_expression is not None:
            seconds_expression = Converted(seconds_expression, capped_seconds)
        if timestamp_expression is not None:
            timestamp_expression = Converted(timestamp_expression, expression_timestamp)
        moment = parse_timestamp(timestamp) if isinstance(timestamp, str) else None
        return lambda **common: joined(WaitState)(
            **common,
            seconds=one_field(seconds, seconds_path, seconds_expression, SECONDS_PATH),
            timestamp=one_field(moment, timestamp_path, timestamp_expression, TIMESTAMP_PATH),
        )

    def _succeed(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        return joined(SucceedState)

    def _fail(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        self.at_most_one(value, "Fail", ("Error", "ErrorPath"), location)
        self.at_most_one(value, "Fail", ("Cause", "CausePath"), location)
        error_expression = self.jsonata_field(value, "Error", location, STRING)
        cause_expression = self.jsonata_field(value, "Cause", location, STRING)
        error = self.typed(value, "Error", "STRING", location) if error_expression is None else None
        cause = self.typed(value, "Cause", "STRING", location) if cause_expression is None else None
        for field, text in (("Error", error), ("Cause", cause)):
            if self.language == JSONPATH and looks_dynamic(text):
                self.warning(
                    NO_PATH,
                    f"The field '{field}' looks like a JSONPath or an intrinsic function but its name does not end "
                    f"with 'Path', so it is taken as a string: use '{field}Path'",
                    f"{location}/{field}",
                )
        error_path = self.path_or_intrinsic(value, "ErrorPath", location)
        cause_path = self.path_or_intrinsic(value, "CausePath", location)
        return lambda **common: joined(FailState)(
            **common,
            error=one_field(error, error_path, error_expression, ERROR_PATH),
            cause=one_field(cause, cause_path, cause_expression, CAUSE_PATH),
        )

    def _parallel(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        language = self.language  # the branches' states change it
        branches: list[StateMachine | None] = []
        if "Branches" not in value:
            self.error("These fields are required: [Branches]", location or "/")
        definitions = self.typed(value, "Branches", "ARRAY", location)
        if isinstance(definitions, list):
            if not definitions:
                self.error(EMPTY, f"{location}/Branches")
            branches = [
                self.machine(branch, f"{location}/Branches[{index}]", kind="branch", query_language=self.machine_language)
                for index, branch in enumerate(definitions)
            ]
        self.language = language
        parameters = self.arguments_or_parameters(value, location)
        result_selector = self.template(value, "ResultSelector", location)
        result_path = self.result_path(value, location)
        retry = self.retriers(value, location)
        catch = self.catchers(name, value, location, scope)
        return lambda **common: joined(ParallelState)(
            **common,
            branches=tuple(branches),
            parameters=parameters,
            result_selector=result_selector,
            result_path=result_path,
            retry=retry,
            catch=catch,
        )
