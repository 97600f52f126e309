"""The documentation site (docs/, mkdocs.yml) is part of the product: it builds with warnings as errors
(a broken link fails it), and every code sample on its pages is run by the suite as written.

How each kind of sample is run, as the README's always were:
- a Python block is a whole file of examples/ (the suite runs examples/, see test_examples.py), or a
  script that talks to the default endpoint, run here against a server of its own;
- a shell line `sfn-emulator run|validate|graph|stack ...` is run here on the project's files, one with
  `--endpoint http://127.0.0.1:8083` against a server of the block's own; `serve` and a line that needs
  the reader's files (`$EXECUTION_ARN`, `tuesday.json`) are parsed by the command's own parser and settings; `curl` lines are sent to a server of their own and
  answer what their `# {...}` line says; `docker` lines are checked against the Dockerfile and the
  settings (podman-smoke.sh runs the image in CI); the README's set-up commands are CI's (.ci/run);
- a YAML block is a file of the project, or loaded by the reader it documents;
- a text block shows output and runs nothing.
Whatever a sample is, it must be one of these: a new kind fails here until the suite runs it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from helpers.markdown_blocks import DEFAULT_ENDPOINT, ROOT, doc_pages, fenced_blocks, page_blocks
from sfn_emulator.cli.main import build_parser
from sfn_emulator.config import OPTIONS, Settings
from sfn_emulator.resources.function_map import load_function_map

EXAMPLE_FILES = {path.read_text() for path in (ROOT / "examples").glob("*.py")}
PROJECT_FILES = {path.read_text() for folder in ("examples", "fixtures") for path in (ROOT / folder).rglob("*.y*ml")}
SETTINGS_VARIABLES = {option.env for option in OPTIONS}
RUN_HERE = {"run", "validate", "graph", "stack"}  # commands that need nothing but the project's files
LANGUAGES = {"python", "sh", "yaml", "text"}


def _ids(cases: list[tuple[str, str]]) -> list[str]:
    """`page.md#n`: the n-th sample of its kind on that page."""
    pages = [page for page, _ in cases]
    return [f"{page}#{pages[:index + 1].count(page)}" for index, page in enumerate(pages)]


PYTHON = page_blocks("python")
SCRIPTS = [(page, block) for page, block in PYTHON if block not in EXAMPLE_FILES]
SHELL = [(page, textwrap.dedent(block)) for page, block in page_blocks("sh")]
YAML = [(page, textwrap.dedent(block)) for page, block in page_blocks("yaml")]


def test_the_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    site = tmp_path / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(site)],
        capture_output=True, text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stderr
    for page in doc_pages():
        name = "index.html" if page.stem == "index" else f"{page.stem}/index.html"
        assert (site / name).is_file(), f"{page.name} is not on the site"


def test_every_sample_is_of_a_kind_the_suite_runs() -> None:
    for page in doc_pages():
        languages = set(re.findall(r"^ *```(\w*)\n", page.read_text(), flags=re.M)) - {""}
        assert languages <= LANGUAGES, f"{page.name}: samples in {languages - LANGUAGES} are run by nothing"


def test_the_configuration_page_lists_every_option_and_its_variable() -> None:
    listed = re.findall(r"^\| `(--[\w-]+)` \| `(\w+)` \|", (ROOT / "docs" / "configuration.md").read_text(), flags=re.M)
    assert sorted(listed) == sorted((option.flag, option.env) for option in OPTIONS)


def test_the_architecture_page_maps_every_package_and_root_module() -> None:
    """A package or a module added at the package's root gets its row in the layout, in its real path."""
    layout = (ROOT / "docs" / "architecture.md").read_text()
    package = ROOT / "emulator" / "sfn_emulator"
    for path in sorted(package.iterdir()):
        if path.is_dir() and (path / "__init__.py").exists():
            assert f"`emulator/sfn_emulator/{path.name}/`" in layout, f"no row for {path.name}/"
        elif path.suffix == ".py" and path.stem != "__init__":
            assert f"`{path.name}`" in layout or f"`emulator/sfn_emulator/{path.name}`" in layout, path.name
    for path in sorted((ROOT / "plugins" / "sfn_emulator_plugins").glob("*.py")):
        assert path.stem == "__init__" or f"`{path.name}`" in layout, path.name


def test_the_architecture_page_lists_the_layers_in_the_contracts_order() -> None:
    """"The layers" names every layer of the import-linter contract, top first, as `lint-imports` checks them."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    section = page[page.index("## The layers"):page.index("\n## ", page.index("## The layers") + 1)]
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    [layers] = [contract["layers"] for contract in contracts if contract["type"] == "layers"]
    places = []
    for layer in layers:
        for module in layer.split("|"):
            name = module.strip().removeprefix("sfn_emulator.")
            found = [place for ending in ("", "/", ".py") if (place := section.find(f"`{name}{ending}`")) >= 0]
            assert found, f"the layer {name} is not on the architecture page"
            places.append(min(found))
    assert places == sorted(places), "the architecture page lists the layers out of the contract's order"


@pytest.mark.parametrize(("page", "block"), PYTHON, ids=_ids(PYTHON))
def test_a_python_sample_is_an_example_file_or_a_script_run_here(page: str, block: str) -> None:
    assert block in EXAMPLE_FILES or DEFAULT_ENDPOINT in block, (
        f"{page}: a Python sample nothing runs (neither a whole file of examples/ nor a script for "
        f"{DEFAULT_ENDPOINT}):\n{block}")


@contextlib.contextmanager
def _server(serve_arguments: list[str]) -> Iterator[str]:
    """A server of the sample's own, started with the `serve` options it names: a sample may change
    the clock or reset an account without touching what other tests share."""
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.wire import HttpServer

    settings = Settings.from_sources(vars(build_parser().parse_args(["serve", *serve_arguments])), {})
    with Emulator(settings) as emulator:
        server = HttpServer(emulator.server_app, "127.0.0.1", 0).start()
        try:
            yield server.endpoint_url
        finally:
            server.stop()


@pytest.mark.parametrize(("page", "script"), SCRIPTS, ids=_ids(SCRIPTS))
def test_a_script_runs_as_written_and_prints_what_it_says(page: str, script: str) -> None:
    with _server([]) as endpoint:
        ran = subprocess.run([sys.executable, "-c", script.replace(DEFAULT_ENDPOINT, endpoint)],
                             capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    shown = [line[2:] for line in script.splitlines() if line.startswith("# ")]  # what it prints, last
    assert ran.stdout.splitlines()[len(ran.stdout.splitlines()) - len(shown):] == shown


def _commands(block: str) -> list[str]:
    """The block's command lines, continuations joined; comment lines left out."""
    joined = block.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _assignments(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    environ: dict[str, str] = {}
    while argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", argv[0]):
        name, _, value = argv.pop(0).partition("=")
        environ[name] = value
    return environ, argv


def _parsed(arguments: list[str], environ: dict[str, str]) -> Settings:
    """What the command's own parser and settings make of the line: an unknown option, a bad value or
    a missing argument fails here as it would fail the reader."""
    try:
        parsed = build_parser().parse_args(arguments)
    except SystemExit as exit_:
        raise AssertionError(f"sfn-emulator refuses: {shlex.join(arguments)}") from exit_
    return Settings.from_sources(vars(parsed), environ)


class _Shell:
    """What the commands of one block share, as in the reader's shell: a folder where their relative
    paths name the project's files and their outputs land, and a server of their own for the default
    endpoint, started when a command first needs it."""

    def __init__(self, folder: Path, stack: contextlib.ExitStack) -> None:
        for name in ("fixtures", "examples"):
            (folder / name).symlink_to(ROOT / name)
        self.folder = folder
        self._stack = stack
        self._endpoint: str | None = None

    def endpoint(self) -> str:
        if self._endpoint is None:
            self._endpoint = self._stack.enter_context(_server([]))
        return self._endpoint


def _check_sfn_emulator(line: str, argv: list[str], shell: _Shell) -> None:
    environ, arguments = _assignments(argv)
    assert arguments[0] == "sfn-emulator"
    _parsed(arguments[1:], environ)
    runnable = arguments[1] in RUN_HERE and "--endpoint" not in arguments or DEFAULT_ENDPOINT in arguments
    if not runnable or arguments[1] == "serve" or "$" in line:
        return  # serves until stopped, or needs the reader's files: parsed above
    if DEFAULT_ENDPOINT in arguments:
        arguments = [shell.endpoint() if argument == DEFAULT_ENDPOINT else argument for argument in arguments]
    expected = int(match[1]) if (match := re.search(r"#\s*exits (\d+)", line)) else 0
    command = shutil.which("sfn-emulator", path=str(Path(sys.executable).parent)) or "sfn-emulator"  # this environment's
    ran = subprocess.run([command, *arguments[1:]], cwd=shell.folder, env={**os.environ, **environ},
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == expected, f"{line}\n{ran.stdout}{ran.stderr}"


def _check_docker(argv: list[str]) -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    if argv[1] == "build":
        for flag, value in zip(argv, argv[1:]):
            if flag == "--build-arg":
                assert re.search(rf"^ARG {value.split('=')[0]}\b", dockerfile, flags=re.M), value
            if flag == "--secret":
                assert f"id={dict(part.split('=') for part in value.split(','))['id']}" in dockerfile, value
        return
    assert argv[1] == "run", argv
    rest = argv[2:]
    while rest[0].startswith("-"):
        flag = rest.pop(0)
        if flag in ("-e", "-v", "-p"):
            value = rest.pop(0)
            if flag == "-e":
                assert value.split("=")[0] in SETTINGS_VARIABLES, f"{value}: no setting of the emulator"
    image, command = rest[0], rest[1:]
    assert image == "sfn-emulator"
    if command:
        _parsed(command, {})


def _check_pip(argv: list[str]) -> None:
    """`pip install -e ".[extra]"`: the extra exists (the suite does not install into itself)."""
    extras = re.findall(r"\[([\w,]+)\]", " ".join(argv))
    pyproject = (ROOT / "pyproject.toml").read_text()
    for extra in ",".join(extras).split(","):
        assert re.search(rf"^{extra} = \[", pyproject, flags=re.M), f"no extra {extra!r}"


def _check_python(argv: list[str]) -> None:
    """`python benchmarks/run.py`: the script exists; the benchmarks take minutes and run by hand."""
    assert (ROOT / argv[1]).is_file(), argv


def _curl_block(block: str) -> None:
    """Each curl line is sent to a server of the block's own (its `# serve ...` comment gives its
    options); the `# {...}` line after it is the answer, `now` at least the instant shown."""
    serve = re.search(r"#\s*serve (.*)", block)
    lines = block.splitlines()
    with _server(shlex.split(serve[1]) if serve else []) as endpoint:
        for number, line in enumerate(lines):
            if not line.startswith("curl "):
                continue
            command = line.split("#")[0].replace(DEFAULT_ENDPOINT, endpoint)
            ran = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60)
            assert ran.returncode == 0, ran.stderr
            shown = json.loads(lines[number + 1].lstrip("# "))
            answered = json.loads(ran.stdout)
            assert answered.keys() >= shown.keys(), answered
            for key, value in shown.items():
                if key == "now":
                    assert answered[key] >= value, answered
                else:
                    assert answered[key] == value, answered


def _readme_set_up_commands() -> list[str]:
    return [block.strip() for block in fenced_blocks((ROOT / "README.md").read_text(), "sh")]


@pytest.mark.parametrize(("page", "block"), SHELL, ids=_ids(SHELL))
def test_a_shell_sample_runs_or_is_checked(page: str, block: str, tmp_path: Path) -> None:
    if "&&" in block:
        assert block.strip() in _readme_set_up_commands(), f"{page}: not the README's set-up (CI runs those)"
        return
    if block.startswith("curl "):
        _curl_block(block)
        return
    with contextlib.ExitStack() as stack:
        shell = _Shell(tmp_path, stack)
        for line in _commands(block):
            argv = shlex.split(line, comments=True)
            program = _assignments(list(argv))[1][0]
            if program == "sfn-emulator":
                _check_sfn_emulator(line, argv, shell)
            elif program == "docker":
                _check_docker(argv)
            elif program == "pip":
                _check_pip(argv)
            elif program == "python":
                _check_python(argv)
            elif program == "aws":
                assert argv[1:3] == ["stepfunctions", "get-execution-history"], line  # needs an AWS account
            else:
                raise AssertionError(f"{page}: a command the suite neither runs nor checks: {line}")


@pytest.mark.parametrize(("page", "block"), YAML, ids=_ids(YAML))
def test_a_yaml_sample_is_a_project_file_or_loads(page: str, block: str, tmp_path: Path) -> None:
    if block in PROJECT_FILES:
        return  # a fixture the suite runs (test_examples.py pins which)
    document = yaml.safe_load(block)
    if "services" in document:  # Docker Compose: the emulator's service is configured by its settings
        environment = document["services"]["sfn-emulator"]["environment"]
        assert set(environment) <= SETTINGS_VARIABLES, set(environment) - SETTINGS_VARIABLES
        _parsed(["serve"], {name: str(value) for name, value in environment.items()})
        return
    # A functions map, loaded beside the callables' file it names (fixtures/functions/greeting.py).
    functions = tmp_path / "functions.yaml"
    functions.write_text(block)
    (tmp_path / "greeting.py").write_text((ROOT / "fixtures" / "functions" / "greeting.py").read_text())
    mapped = load_function_map(functions)
    assert set(mapped) == set(document)
    for name, entry in document.items():
        assert callable(mapped[name].handler)
        assert mapped[name].timeout_seconds == (entry.get("timeout") if isinstance(entry, dict) else None)
