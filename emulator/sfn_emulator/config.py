"""The emulator's settings, from command-line options and environment variables.

Each setting has one `Option` row naming its field, flag and environment variable, so the CLI, its
`--help` and the environment reader cannot drift apart. Precedence: flag, then environment
variable, then default. Where AWS Step Functions Local has a variable for the same thing, its name
is used (`AWS_ACCOUNT_ID`, `AWS_DEFAULT_REGION`, `WAIT_TIME_SCALE`, `SFN_MOCK_CONFIG`).
"""

from __future__ import annotations

import os
import re
import shlex
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Mapping
from urllib.parse import urlsplit

from msgspec import Struct

from sfn_emulator.clock.virtual_clock import MODES, parse_time
from sfn_emulator.resources.lambda_runtime import DEFAULT_FUNCTION_TIMEOUT, check_timeout

if TYPE_CHECKING:
    import argparse  # the command line's; in-process users never parse one

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class SettingsError(ValueError):
    """A setting has a value the emulator cannot use; the message names the flag and variable."""


class Settings(Struct, frozen=True):
    host: str = "127.0.0.1"
    port: int = 8083
    allowed_hosts: tuple[str, ...] = ()
    account: str = "123456789012"
    region: str = "us-east-1"
    clock: str = "auto"
    clock_start: datetime | None = None
    wait_time_scale: float = 1.0
    clock_skip_external_deadlines: bool = False
    execution_retention_days: int = 0
    functions: Path | None = None
    function_timeout: float = DEFAULT_FUNCTION_TIMEOUT
    mock_config: Path | None = None
    state_dir: Path | None = None
    allowed_file_roots: tuple[Path, ...] = ()
    log_level: str = "INFO"
    lambda_endpoint: str | None = None
    sqs_endpoint: str | None = None
    sns_endpoint: str | None = None
    dynamodb_endpoint: str | None = None
    eventbridge_endpoint: str | None = None
    s3_endpoint: str | None = None
    step_functions_endpoint: str | None = None
    stacks: tuple[Path, ...] = ()
    stack_parameters: tuple[str, ...] = ()

    def remote_endpoints(self) -> dict[str, str]:
        """botocore service name -> URL, for each service sent to a real endpoint instead of moto."""
        return {service: url for service, field_name in REMOTE_ENDPOINT_FIELDS.items()
                if (url := getattr(self, field_name)) is not None}
    seed: int | None = None  # None: a fresh seed per process

    @classmethod
    def from_sources(cls, arguments: Mapping[str, Any], environ: Mapping[str, str]) -> Settings:
        """Settings from parsed flags (None when not given) over environment variables over defaults."""
        values: dict[str, Any] = {}
        for option in OPTIONS:
            given = arguments.get(option.field)
            source = option.flag
            if given is None and environ.get(option.env):
                given, source = environ[option.env], option.env
            if given is not None:
                values[option.field] = option.convert(given, source)
        return cls(**values)


class Option(Struct, frozen=True):
    field: str
    flag: str
    env: str
    convert_text: Callable[[str], Any]
    help: str
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    const: str | None = None  # the value of the flag given alone (boolean switches)
    # A flag given several times; its environment variable holds several values, split by this.
    split: Callable[[str], list[str]] | None = None

    def convert(self, value: Any, source: str) -> Any:
        """The typed value; a bad one raises SettingsError naming where it came from."""
        if self.split is not None:
            values = self.split(value) if isinstance(value, str) else value
            return tuple(self.convert_single(item, source) for item in values)
        return self.convert_single(value, source)

    def convert_single(self, value: Any, source: str) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return self.convert_text(value)
        except ValueError as error:
            raise SettingsError(f"{source}: {error}") from None


def _port(text: str) -> int:
    port = int(text)
    if not 0 <= port <= 65535:
        raise ValueError(f"port must be between 0 and 65535, not {port}")
    return port


def _host_names(text: str) -> tuple[str, ...]:
    names = tuple(name.strip().lower() for name in text.split(",") if name.strip())
    bad = [name for name in names if any(char in name for char in " /@?#")]
    if bad:
        raise ValueError(f"{bad[0]!r} is not a host name: give names such as sfn-emulator,host.docker.internal (or *)")
    return names


def _account(text: str) -> str:
    if not re.fullmatch(r"\d{12}", text):
        raise ValueError(f"an AWS account id is 12 digits, not {text!r}")
    return text


def _region(text: str) -> str:
    if not re.fullmatch(r"[a-z0-9-]+", text):  # it becomes part of ARNs
        raise ValueError(f"{text!r} is not a region name such as us-east-1")
    return text


def _one_of(allowed: tuple[str, ...], *, upper: bool = False) -> Callable[[str], str]:
    def convert(text: str) -> str:
        value = text.upper() if upper else text.lower()
        if value not in allowed:
            raise ValueError(f"must be one of {', '.join(allowed)}, not {text!r}")
        return value

    return convert


def _scale(text: str) -> float:
    scale = float(text)
    if not scale >= 0:  # also rejects NaN
        raise ValueError(f"the wait time scale must be a number >= 0, not {text!r}")
    return scale


_BOOLEANS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


def _boolean(text: str) -> bool:
    try:
        return _BOOLEANS[text.strip().lower()]
    except KeyError:
        raise ValueError(f"must be one of true, false, 1, 0, yes, no, not {text!r}") from None


def _days(text: str) -> int:
    days = int(text)
    if days < 0:
        raise ValueError(f"the retention must be a whole number of days >= 0, not {text!r}")
    return days


def _function_timeout(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise ValueError(f"the function timeout must be a number of seconds, not {text!r}") from None
    return check_timeout(seconds, "the function timeout")


def _endpoint_url(text: str) -> str:
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"an endpoint is a URL such as http://localhost:4566, not {text!r}")
    return text.strip().rstrip("/")
def _paths(text: str) -> list[str]:
    return [item for item in text.split(os.pathsep) if item]


def _stack_parameter(text: str) -> str:
    key, sep, _ = text.partition("=")
    if not sep or not key:
        raise ValueError(f"a stack parameter is KEY=VALUE (or Stack.KEY=VALUE), not {text!r}")
    return text


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"the seed must be a whole number, not {text!r}") from None


def _path(text: str) -> Path:
    return Path(text).expanduser()


def _directories(text: str) -> tuple[Path, ...]:
    """Directories separated by the platform's path separator (':' on POSIX, as in PATH)."""
    return tuple(Path(part).expanduser() for part in text.split(os.pathsep) if part.strip())


def _instant(text: str) -> datetime:
    try:
        return parse_time(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO-8601 time such as 2024-01-01T00:00:00Z") from None


# The services AWS Step Functions Local sends to real endpoints, with its variable names (the field in upper case):
# (botocore service name, setting, what the help calls it)
_REMOTE_ENDPOINTS = (
    ("lambda", "lambda_endpoint", "Lambda"), ("sqs", "sqs_endpoint", "SQS"), ("sns", "sns_endpoint", "SNS"),
    ("dynamodb", "dynamodb_endpoint", "DynamoDB"), ("events", "eventbridge_endpoint", "EventBridge"),
    ("s3", "s3_endpoint", "S3"), ("stepfunctions", "step_functions_endpoint", "Step Functions"),
)

OPTIONS: tuple[Option, ...] = (
    Option("host", "--host", "SFN_EMULATOR_HOST", str, "address to listen on"),
    Option("port", "--port", "SFN_EMULATOR_PORT", _port, "port to listen on (0: any free port)"),
    Option("allowed_hosts", "--allowed-hosts", "SFN_EMULATOR_ALLOWED_HOSTS", _host_names,
           "Host names answered besides loopback ones and the address listened on, comma-separated (* for any)",
           metavar="NAMES"),
    Option("account", "--account", "AWS_ACCOUNT_ID", _account,
           "account id for requests whose access key id is not a 12-digit account id"),
    Option("region", "--region", "AWS_DEFAULT_REGION", _region,
           "region for requests that carry no SigV4 credential scope"),
    Option("clock", "--clock", "SFN_EMULATOR_CLOCK", _one_of(MODES),
           "auto: skip waits when nothing else can run; manual: time moves only when told; real: wall time",
           choices=MODES),
    Option("clock_start", "--clock-start", "SFN_EMULATOR_CLOCK_START", _instant,
           "the clock's first instant, ISO-8601 (default: now)", metavar="TIME"),
    Option("wait_time_scale", "--wait-time-scale", "WAIT_TIME_SCALE", _scale,
           "real clock only: multiply wait durations by this (0.5 halves them)", metavar="FACTOR"),
    Option("clock_skip_external_deadlines", "--clock-skip-external-deadlines",
           "SFN_EMULATOR_CLOCK_SKIP_EXTERNAL_DEADLINES", _boolean,
           "auto clock: also jump to callback, activity and heartbeat deadlines", metavar="BOOL", const="true"),
    Option("execution_retention_days", "--execution-retention-days", "SFN_EMULATOR_EXECUTION_RETENTION_DAYS",
           _days, "clock days a finished execution stays visible (0: forever; AWS keeps 90)", metavar="DAYS"),
    Option("functions", "--functions", "SFN_EMULATOR_FUNCTIONS", _path,
           "JSON/YAML map of Lambda function name or ARN to the Python callable serving it: "
           "'file.py:callable' (relative to the map) or 'package.module:callable', or an object "
           "{handler, timeout}", metavar="FILE"),
    Option("function_timeout", "--function-timeout", "SFN_EMULATOR_FUNCTION_TIMEOUT", _function_timeout,
           "wall-clock seconds a Python callable may run before it fails with Sandbox.Timedout, unless its "
           "functions map entry gives its own (at most 900, Lambda's largest)", metavar="SECONDS"),
    Option("mock_config", "--mock-config", "SFN_MOCK_CONFIG", _path,
           "mock configuration file (AWS Step Functions Local's format)", metavar="FILE"),
    Option("state_dir", "--state-dir", "SFN_EMULATOR_STATE_DIR", _path,
           "keep every resource, execution and history, and the clock, in an SQLite database in DIR, "
           "loaded at start (default: in memory only)", metavar="DIR"),
    Option("allowed_file_roots", "--allowed-file-roots", "SFN_EMULATOR_ALLOWED_FILE_ROOTS", _directories,
           f"directories under which file:// references of definitions sent to the API may be read, separated by "
           f"'{os.pathsep}' (default: none)", metavar="DIRS"),
    Option("log_level", "--log-level", "SFN_EMULATOR_LOG_LEVEL", _one_of(LOG_LEVELS, upper=True),
           "logging threshold", choices=LOG_LEVELS),
    *(Option(field_name, f"--{field_name.replace('_', '-')}", field_name.upper(), _endpoint_url,
             f"send {label} integrations to this real endpoint (boto3, dummy credentials) instead of "
             f"{'the emulator itself' if service == 'stepfunctions' else 'moto'}", metavar="URL")
      for service, field_name, label in _REMOTE_ENDPOINTS),
    Option("stacks", "--stack", "SFN_EMULATOR_STACKS", _path,
           "load this SAM/CloudFormation template, CDK assembly (cdk.out), Serverless package (.serverless/) or "
           "Terraform JSON at start: its state machines, Python functions and resources (repeatable; the "
           "variable separates paths by the path separator)", metavar="PATH", split=_paths),
    Option("stack_parameters", "--stack-parameter", "SFN_EMULATOR_STACK_PARAMETERS", _stack_parameter,
           "a template parameter for the loaded stacks, KEY=VALUE, or Stack.KEY=VALUE for one stack (repeatable; "
           "the variable holds several, separated as a shell separates words)", metavar="KEY=VALUE",
           split=shlex.split),
    Option("seed", "--seed", "SFN_EMULATOR_SEED", _seed,
           "seed of every id and random value executions draw (task tokens, generated names, States.UUID, "
           "$random(), jitter), so a run repeats itself (default: a fresh seed per process)", metavar="N"),
)

# botocore service name -> the setting holding the endpoint it is sent to
REMOTE_ENDPOINT_FIELDS: Mapping[str, str] = {service: field_name for service, field_name, _ in _REMOTE_ENDPOINTS}

assert {option.field for option in OPTIONS} == set(Settings.__struct_fields__)


def add_arguments(parser: argparse.ArgumentParser, fields: Collection[str] | None = None) -> None:
    """Add one flag per setting (or per setting named in `fields`); each help line names its
    environment variable and default."""
    defaults = Settings()
    for option in OPTIONS:
        if fields is not None and option.field not in fields:
            continue
        default = getattr(defaults, option.field)
        shown_default = "" if default is None or default == () else f", default {default}"
        parser.add_argument(
            option.flag,
            dest=option.field,
            default=None,
            **({"nargs": "?", "const": option.const} if option.const is not None else {}),
            **({"action": "append"} if option.split is not None else {}),
            metavar=option.metavar or ("|".join(option.choices) if option.choices else None),
            help=f"{option.help} [env {option.env}{shown_default}]",
        )
