"""Names of state machines, activities, executions and aliases, checked as AWS checks them."""

from __future__ import annotations

import re

from sfn_emulator.service.errors import InvalidName, ValidationException

# AWS: a name must not contain white space, brackets `< > { } [ ]`, wildcards `? *`, the special
# characters `" # % \ ^ | ~ ` $ & , ; : /`, or control characters (U+0000-001F, U+007F-009F).
_FORBIDDEN = frozenset(' <>{}[]?*"#%\\^|~`$&,;:/')
_MAX_NAME_LENGTH = 80

# The alias name constraint, as AWS words it in its ValidationException.
_ALIAS_PATTERN_TEXT = "^(?=.*[a-zA-Z_\\-\\.])[a-zA-Z0-9_\\-\\.]+$"
_ALIAS_PATTERN = re.compile(r"^(?=.*[a-zA-Z_\-.])[a-zA-Z0-9_\-.]+$")


def _is_control(char: str) -> bool:
    code = ord(char)
    return code <= 0x1F or 0x7F <= code <= 0x9F


def check_name(name: str) -> str:
    """Raise `InvalidName` unless `name` may name a state machine, activity or execution."""
    if not 1 <= len(name) <= _MAX_NAME_LENGTH or any(
        char in _FORBIDDEN or char.isspace() or _is_control(char) for char in name
    ):
        raise InvalidName(f"Invalid Name: '{name}'")
    return name


def check_alias_name(name: str) -> str:
    """Raise AWS's `ValidationException` unless `name` may name a state machine alias."""
    if len(name) > _MAX_NAME_LENGTH:
        raise ValidationException(
            f"1 validation error detected: Value '{name}' at 'name' failed to satisfy constraint: "
            f"Member must have length less than or equal to {_MAX_NAME_LENGTH}"
        )
    if not _ALIAS_PATTERN.match(name):
        raise ValidationException(
            f"1 validation error detected: Value '{name}' at 'name' failed to satisfy constraint: "
            f"Member must satisfy regular expression pattern: {_ALIAS_PATTERN_TEXT}"
        )
    return name
