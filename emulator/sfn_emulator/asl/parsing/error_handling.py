"""Parsing Retry and Catch: retriers, catchers and their ErrorEquals."""

from __future__ import annotations

from sfn_emulator.asl.model import JSONATA, Catcher, Retrier
from sfn_emulator.asl.parsing.expressions import ExpressionFields
from sfn_emulator.asl.parsing.rules import (
    MAX_SECONDS,
    RETRIER_FIELDS,
    CATCHER_FIELDS,
    JSONATA_CATCHER_FIELDS,
    JITTER_STRATEGIES,
    ALL_ERRORS,
    EMPTY,
    expected_type,
)
from sfn_emulator.asl.validation import Scope, Transition


class ErrorHandlingFields(ExpressionFields):
    """Retriers and catchers of Task, Parallel and Map states."""

    # -- error handling -------------------------------------------------------------------------

    def retriers(self, value: dict, location: str) -> tuple[Retrier, ...]:
        definitions = self.typed(value, "Retry", "ARRAY", location)
        if not isinstance(definitions, list):
            return ()
        retriers = []
        for index, definition in enumerate(definitions):
            here = f"{location}/Retry[{index}]"
            if not isinstance(definition, dict):
                self.error(expected_type("OBJECT"), here)
                continue
            self.unknown_fields(definition, RETRIER_FIELDS, here)
            error_equals = self.error_equals(definition, here, last=index == len(definitions) - 1)
            settings = {  # the fields given; Retrier's defaults are ASL's for the others
                "interval_seconds": self.integer(definition, "IntervalSeconds", here, minimum=1, maximum=MAX_SECONDS),
                "max_attempts": self.integer(definition, "MaxAttempts", here, minimum=0, maximum=MAX_SECONDS),
                "backoff_rate": self.number(definition, "BackoffRate", here, minimum=1),
                "max_delay_seconds": self.integer(definition, "MaxDelaySeconds", here, minimum=1, maximum=MAX_SECONDS),
                "jitter_strategy": self.enum(definition, "JitterStrategy", JITTER_STRATEGIES, here),
                "comment": self.typed(definition, "Comment", "STRING", here),
            }
            retriers.append(Retrier(
                error_equals=error_equals, **{key: item for key, item in settings.items() if item is not None}
            ))
        return tuple(retriers)

    def catchers(self, name: str, value: dict, location: str, scope: Scope) -> tuple[Catcher, ...]:
        definitions = self.typed(value, "Catch", "ARRAY", location)
        if not isinstance(definitions, list):
            return ()
        catchers = []
        for index, definition in enumerate(definitions):
            here = f"{location}/Catch[{index}]"
            if not isinstance(definition, dict):
                self.error(expected_type("OBJECT"), here)
                continue
            jsonata = self.language == JSONATA
            self.unknown_fields(definition, JSONATA_CATCHER_FIELDS if jsonata else CATCHER_FIELDS, here)
            assign = self.assign(definition, here)
            output = self.jsonata_template(definition, "Output", here) if jsonata else None
            error_equals = self.error_equals(definition, here, last=index == len(definitions) - 1)
            next_state = self.typed(definition, "Next", "STRING", here)
            if "Next" not in definition:
                self.error("These fields are required: [Next]", here)
            elif isinstance(next_state, str):
                scope.transitions.append(Transition(name, next_state, f"{here}/Next"))
            result_path = self.result_path(definition, here)
            comment = self.typed(definition, "Comment", "STRING", here)
            if isinstance(next_state, str):
                catchers.append(Catcher(
                    error_equals=error_equals, next=next_state, result_path=result_path, assign=assign,
                    output=output, comment=comment,
                ))
        return tuple(catchers)

    def error_equals(self, definition: dict, location: str, *, last: bool) -> tuple[str, ...]:
        """A retrier's or catcher's ErrorEquals: non-empty names; States.ALL alone, in the last one."""
        if "ErrorEquals" not in definition:
            self.error("These fields are required: [ErrorEquals]", location)
            return ()
        names = self.typed(definition, "ErrorEquals", "ARRAY", location)
        if not isinstance(names, list):
            return ()
        here = f"{location}/ErrorEquals"
        if not names:
            self.error(EMPTY, here)
        for index, item in enumerate(names):
            if not isinstance(item, str):
                self.error(expected_type("STRING"), f"{here}[{index}]")
        if ALL_ERRORS in names and len(names) > 1:
            self.error(f"'{ALL_ERRORS}' must appear alone in the field 'ErrorEquals'", here)
        if ALL_ERRORS in names and not last:
            self.error(f"A retrier or catcher whose 'ErrorEquals' contains '{ALL_ERRORS}' must be the last one", here)
        return tuple(item for item in names if isinstance(item, str))
