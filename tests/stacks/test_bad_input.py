"""Input that is no usable stack gets one clear message, with file and line where there is one, and no
traceback: from `Emulator.load_stack`, from `sfn-emulator stack show` (exit 2) and from `serve --stack`,
which refuses to start (exit 2). What is readable but not whole is unresolved (exit 1)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.stack_fixtures import CDK_ORDERS, SAM_STOCK_TRADER

from sfn_emulator.cli.main import main
from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator
from sfn_emulator.stacks import StackError

MACHINE = """\
  Flow:
    Type: AWS::StepFunctions::StateMachine
    Properties: {Definition: {StartAt: P, States: {P: {Type: Pass, End: true}}}}
"""

# (case, files to write (the first is the path given), what the message says)
UNREADABLE = [
    ("yaml-error", {"template.yaml": "Resources:\n  Flow:\n    Type: [AWS::StepFunctions::StateMachine\n"},
     "template.yaml:4: "),
    ("json-error", {"template.json": '{\n  "Resources": {\n    "Flow": {"Type": \n'}, "template.json:"),
    ("missing-file", {}, "template.yaml: no such file or directory"),
    ("no-resources", {"template.yaml": "AWSTemplateFormatVersion: '2010-09-09'\nDescription: nothing\n"},
     "not a CloudFormation template (it has no Resources section)"),
    ("no-state-machine", {"template.yaml": "Resources:\n  Queue: {Type: AWS::SQS::Queue}\n"},
     "no state machine (AWS::StepFunctions::StateMachine or AWS::Serverless::StateMachine) in the stack"),
    ("unsupported-transform", {"template.yaml": "Transform: AWS::LanguageExtensions\nResources:\n" + MACHINE},
     "the transform AWS::LanguageExtensions is not supported"),
    ("macro", {"template.yaml": "Transform: [AWS::Serverless-2016-10-31, MyCompanyMacro]\nResources:\n" + MACHINE},
     "the transform MyCompanyMacro is not supported"),
    ("sam-invalid", {"template.yaml": "Transform: AWS::Serverless-2016-10-31\nResources:\n  Flow:\n"
                     "    Type: AWS::Serverless::StateMachine\n    Properties: {Role: x}\n"},
     "SAM cannot translate the template: "),
    ("directory", {"notes/readme.txt": "hello"}, "a directory that is no CDK cloud assembly"),
    ("cdk-manifest-json", {"cdk.out/manifest.json": '{"version": "55.0.0", "artifacts": {'}, "manifest.json:1: "),
    ("cdk-no-stack", {"cdk.out/manifest.json": '{"version": "55.0.0", "artifacts": {}}'},
     "the cloud assembly has no stack"),
    ("serverless-without-state", {".serverless/cloudformation-template-update-stack.json":
                                  '{"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}'},
     "serverless-state.json: no service name and stage"),
    ("terraform-without-aws", {"show.json": '{"format_version": "1.0", "values": {"root_module": {"resources": '
                               '[{"address": "null_resource.x", "mode": "managed", "type": "null_resource", '
                               '"values": {}}]}}}'},
     "no AWS resource of a kind the emulator loads in this Terraform JSON"),
    ("terraform-json-error", {"show.json": '{"format_version": "1.0",\n "values": [\n'}, "show.json:3: "),
]


def _given(tmp_path: Path, files: dict[str, str], case: str) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    if not files:
        return tmp_path / "template.yaml"
    first = tmp_path / next(iter(files))
    return first.parent if first.parent != tmp_path else first


@pytest.mark.parametrize(("case", "files", "message"), UNREADABLE, ids=[case[0] for case in UNREADABLE])
def test_unreadable_input_is_refused_with_one_clear_message(tmp_path: Path, case, files, message) -> None:
    path = _given(tmp_path, files, case)
    with Emulator(Settings()) as emulator, pytest.raises(StackError) as raised:
        emulator.load_stack(path)
    assert message in str(raised.value)
    assert str(path) in str(raised.value)


@pytest.mark.parametrize(("case", "files", "message"), UNREADABLE, ids=[case[0] for case in UNREADABLE])
def test_stack_show_and_serve_exit_2_on_unreadable_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         case, files, message) -> None:
    path = _given(tmp_path, files, case)
    for command in (["stack", "show", str(path)], ["serve", "--port", "0", "--stack", str(path)]):
        assert main(command) == 2
        captured = capsys.readouterr()
        assert message in captured.err and "Traceback" not in captured.err
        assert "serving" not in captured.out


def _copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / source.name
    shutil.copytree(source, target)
    return target


@pytest.mark.parametrize(("case", "break_it", "what"), [
    ("missing-definition-file", lambda root: (root / "statemachine" / "stock_trader.asl.json").unlink(),
     "stock_trader.asl.json does not exist"),
    ("missing-code-directory", lambda root: shutil.rmtree(root / "functions" / "stock_buyer"),
     "stock_buyer does not exist"),
], ids=lambda case: case if isinstance(case, str) else "")
def test_missing_files_of_a_sam_app_are_unresolved_and_serve_refuses(tmp_path: Path, capsys, case, break_it, what) -> None:
    root = _copy(SAM_STOCK_TRADER.parent, tmp_path)
    break_it(root)
    template = root / "template.yaml"
    assert main(["stack", "show", str(template)]) == 1
    shown = json.loads(capsys.readouterr().out)
    problems = [problem for problem in shown["unresolved"] if what in problem["what"]]
    assert problems and problems[0]["file"] == str(template) and isinstance(problems[0]["line"], int)
    assert main(["serve", "--port", "0", "--stack", str(template)]) == 2
    assert what in capsys.readouterr().err


def test_a_missing_cdk_asset_is_unresolved(tmp_path: Path, capsys) -> None:
    assembly = _copy(CDK_ORDERS, tmp_path)
    manifest = json.loads((assembly / "OrdersStack.assets.json").read_text())
    refund_definition = next(entry["source"]["path"] for entry in manifest["files"].values()
                             if entry.get("displayName") == "RefundFlow/DefinitionBody")
    (assembly / refund_definition).unlink()
    assert main(["stack", "show", str(assembly)]) == 1
    shown = json.loads(capsys.readouterr().out)
    assert [problem["logical_id"] for problem in shown["unresolved"]] == ["RefundFlowFE67B7FA"]
    assert refund_definition in shown["unresolved"][0]["what"]
    assert sorted(shown["state_machines"]) == ["AuditFlow7EA94166", "OrderFlowA028A46E"]


def test_without_the_stacks_extra_the_message_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "cfnlint.decode", None)  # as if cfn-lint were not installed
    with Emulator(Settings()) as emulator, pytest.raises(StackError, match=r"the `stacks` extra \(cfnlint is missing\)"):
        emulator.load_stack(SAM_STOCK_TRADER)
