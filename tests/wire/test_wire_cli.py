"""`sfn-emulator serve` and its settings: flags, environment variables, help, a real process."""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers.paths import REPOSITORY
from helpers.rawhttp import send

from sfn_emulator.cli.main import main
from sfn_emulator.config import OPTIONS, Settings, SettingsError
from helpers.clients import make_client



class TestSettings:
    def test_defaults(self):
        settings = Settings.from_sources({}, {})
        assert settings == Settings()
        assert (settings.host, settings.port, settings.account, settings.region) == (
            "127.0.0.1", 8083, "123456789012", "us-east-1"
        )
        assert (settings.clock, settings.clock_start, settings.wait_time_scale) == ("auto", None, 1.0)
        assert settings.function_timeout == 900.0  # Lambda's largest: never fail a task AWS would let finish

    def test_every_setting_has_its_environment_variable(self):
        environ = {
            "SFN_EMULATOR_HOST": "0.0.0.0",
            "SFN_EMULATOR_PORT": "9000",
            "SFN_EMULATOR_ALLOWED_HOSTS": "sfn-emulator, Host.Docker.Internal,",
            "AWS_ACCOUNT_ID": "111122223333",
            "AWS_DEFAULT_REGION": "eu-west-1",
            "SFN_EMULATOR_CLOCK": "manual",
            "SFN_EMULATOR_CLOCK_START": "2024-01-01T00:00:00Z",
            "WAIT_TIME_SCALE": "0.5",
            "SFN_EMULATOR_FUNCTIONS": "functions.py",
            "SFN_EMULATOR_FUNCTION_TIMEOUT": "30",
            "SFN_MOCK_CONFIG": "mocks.json",
            "SFN_EMULATOR_LOG_LEVEL": "debug",
            "LAMBDA_ENDPOINT": "http://localhost:3001/",
            "SQS_ENDPOINT": "http://elasticmq:9324",
            "SNS_ENDPOINT": "http://localstack:4566",
            "DYNAMODB_ENDPOINT": "http://dynamodb-local:8000",
            "EVENTBRIDGE_ENDPOINT": "http://localstack:4566",
            "S3_ENDPOINT": "https://minio:9000",
            "STEP_FUNCTIONS_ENDPOINT": "http://other-emulator:8083",
        }
        assert Settings.from_sources({}, environ) == Settings(
            host="0.0.0.0",
            port=9000,
            allowed_hosts=("sfn-emulator", "host.docker.internal"),
            account="111122223333",
            region="eu-west-1",
            clock="manual",
            clock_start=datetime(2024, 1, 1, tzinfo=timezone.utc),
            wait_time_scale=0.5,
            functions=Path("functions.py"),
            function_timeout=30.0,
            mock_config=Path("mocks.json"),
            log_level="DEBUG",
            lambda_endpoint="http://localhost:3001",
            sqs_endpoint="http://elasticmq:9324",
            sns_endpoint="http://localstack:4566",
            dynamodb_endpoint="http://dynamodb-local:8000",
            eventbridge_endpoint="http://localstack:4566",
            s3_endpoint="https://minio:9000",
            step_functions_endpoint="http://other-emulator:8083",
        )

    def test_endpoints_are_named_by_the_service_they_move(self):
        settings = Settings.from_sources({"step_functions_endpoint": "http://b:2"}, {"SQS_ENDPOINT": "http://a:1"})
        assert settings.remote_endpoints() == {"sqs": "http://a:1", "stepfunctions": "http://b:2"}

    def test_a_flag_wins_over_its_environment_variable(self):
        settings = Settings.from_sources({"port": "9001", "clock": "real"}, {"SFN_EMULATOR_PORT": "9000"})
        assert (settings.port, settings.clock) == (9001, "real")

    def test_allowed_hosts_come_from_the_flag_over_the_variable(self):
        settings = Settings.from_sources({"allowed_hosts": "*"}, {"SFN_EMULATOR_ALLOWED_HOSTS": "sfn-emulator"})
        assert settings.allowed_hosts == ("*",)

    def test_an_empty_environment_variable_is_unset(self):
        assert Settings.from_sources({}, {"SFN_EMULATOR_PORT": ""}).port == 8083

    @pytest.mark.parametrize(
        ("environ", "named"),
        [
            ({"SFN_EMULATOR_PORT": "eighty"}, "SFN_EMULATOR_PORT"),
            ({"SFN_EMULATOR_PORT": "70000"}, "SFN_EMULATOR_PORT"),
            ({"AWS_ACCOUNT_ID": "1234"}, "AWS_ACCOUNT_ID"),
            ({"SFN_EMULATOR_CLOCK": "fast"}, "SFN_EMULATOR_CLOCK"),
            ({"SFN_EMULATOR_CLOCK_START": "yesterday"}, "SFN_EMULATOR_CLOCK_START"),
            ({"WAIT_TIME_SCALE": "-1"}, "WAIT_TIME_SCALE"),
            ({"WAIT_TIME_SCALE": "nan"}, "WAIT_TIME_SCALE"),
            ({"SFN_EMULATOR_LOG_LEVEL": "LOUD"}, "SFN_EMULATOR_LOG_LEVEL"),
            ({"SFN_EMULATOR_FUNCTION_TIMEOUT": "0"}, "SFN_EMULATOR_FUNCTION_TIMEOUT"),
            ({"SFN_EMULATOR_FUNCTION_TIMEOUT": "901"}, "SFN_EMULATOR_FUNCTION_TIMEOUT"),
            ({"SFN_EMULATOR_FUNCTION_TIMEOUT": "nan"}, "SFN_EMULATOR_FUNCTION_TIMEOUT"),
            ({"SFN_EMULATOR_FUNCTION_TIMEOUT": "soon"}, "SFN_EMULATOR_FUNCTION_TIMEOUT"),
            ({"SFN_EMULATOR_ALLOWED_HOSTS": "http://sfn-emulator:8083/"}, "SFN_EMULATOR_ALLOWED_HOSTS"),
            ({"SQS_ENDPOINT": "localhost:9324"}, "SQS_ENDPOINT"),
            ({"LAMBDA_ENDPOINT": "ftp://localhost"}, "LAMBDA_ENDPOINT"),
        ],
    )
    def test_a_bad_value_is_refused_naming_where_it_came_from(self, environ, named):
        with pytest.raises(SettingsError, match=named):
            Settings.from_sources({}, environ)

    def test_a_bad_flag_value_makes_the_command_fail_with_usage(self, capsys):
        with pytest.raises(SystemExit) as exited:
            main(["serve", "--port", "eighty"])
        assert exited.value.code == 2
        assert "--port" in capsys.readouterr().err


class TestHelp:
    def test_serve_help_lists_every_option_with_its_environment_variable(self, capsys):
        with pytest.raises(SystemExit) as exited:
            main(["serve", "--help"])
        assert exited.value.code == 0
        text = " ".join(capsys.readouterr().out.split())
        for option in OPTIONS:
            assert option.flag in text
            assert f"env {option.env}" in text

    def test_no_command_prints_usage_and_fails(self, capsys):
        assert main([]) == 2
        assert "serve" in capsys.readouterr().err


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def read_until(process: subprocess.Popen[bytes], marker: str, timeout: float = 60) -> str:
    """Output up to the first `marker`; fails if the process ends or stays silent for `timeout` s.

    Reads the pipe unbuffered, so that `select` sees every byte not yet read.
    """
    output = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while marker.encode() not in output:
            assert selector.select(timeout), f"no output for {timeout} s; so far: {output.decode()}"
            chunk = os.read(process.stdout.fileno(), 65536)
            assert chunk, f"the process ended; output: {output.decode()}"
            output += chunk
    return output.decode()


def test_serve_answers_health_and_its_allowed_hosts_prints_a_client_snippet_and_stops_on_sigterm():
    port = free_port()
    environ = {**os.environ, "PYTHONPATH": str(REPOSITORY), "SFN_EMULATOR_PORT": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "sfn_emulator", "serve", "--port", str(port), "--allowed-hosts", "sfn-emulator"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=environ, cwd=REPOSITORY,
    )
    try:
        banner = read_until(process, "Stop with Ctrl-C")
        assert f"http://127.0.0.1:{port}" in banner
        assert "inject_host_prefix=False" in banner
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_emulator/health", timeout=10) as response:
            assert json.loads(response.read())["status"] == "ok"
        for host, status in (("sfn-emulator:8083", 200), ("elsewhere.example", 403)):
            answer = send(f"http://127.0.0.1:{port}", method="GET", path="/_emulator/health", headers={"Host": host})
            assert answer.status == status, (host, answer.body)
        assert f"Web console: http://127.0.0.1:{port}/_emulator/console/" in banner
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_emulator/console/", timeout=10) as response:
            assert "<title>sfn-emulator console</title>" in response.read().decode()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


HUNG_FUNCTIONS = """
import pathlib, threading

def hang(event, context):
    pathlib.Path(event["started"]).touch()
    threading.Event().wait()  # never returns
"""


def test_sigterm_stops_serve_at_once_while_callables_hang(tmp_path: Path):
    """Callables run on daemon threads: nothing waits for them when the process ends."""
    (tmp_path / "hung.py").write_text(HUNG_FUNCTIONS)
    (tmp_path / "functions.json").write_text(json.dumps({"hang": {"handler": "hung.py:hang", "timeout": 900}}))
    port = free_port()
    environ = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    process = subprocess.Popen(
        [sys.executable, "-m", "sfn_emulator", "serve", "--port", str(port), "--functions", str(tmp_path / "functions.json")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=environ, cwd=REPOSITORY,
    )
    try:
        read_until(process, "Stop with Ctrl-C")
        sfn = make_client(f"http://127.0.0.1:{port}")
        machine = sfn.create_state_machine(name="hang", roleArn="arn:aws:iam::123456789012:role/r", definition=json.dumps(
            {"StartAt": "T", "States": {"T": {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:123456789012:function:hang",
                                              "End": True}}}))["stateMachineArn"]
        markers = [tmp_path / f"started-{n}" for n in range(3)]
        for marker in markers:
            sfn.start_execution(stateMachineArn=machine, input=json.dumps({"started": str(marker)}))
        assert poll_until(lambda: all(marker.exists() for marker in markers)), "the callables did not start"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0  # a liveness bound: it stops at once, never after the callables
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def poll_until(condition, attempts: int = 600) -> bool:
    """True once `condition()` holds, checking every 50 ms for at most `attempts` checks."""
    for _ in range(attempts):
        if condition():
            return True
        threading.Event().wait(0.05)
    return condition()
