"""The execution page's "Save as test", in a real headless Chromium: the download is the test case
`sfn-emulator export-test` writes, and it runs as a test."""

from __future__ import annotations

import io
import json
import uuid
import zipfile
from pathlib import Path
from typing import Any

from helpers.console import Console
from playwright.sync_api import expect

expect.set_options(timeout=20_000)

CALLBACK = {"StartAt": "Approve", "States": {
    "Approve": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
                "Parameters": {"FunctionName": "hold", "Payload": {"token.$": "$$.Task.Token"}},
                "ResultPath": "$.approval", "Next": "Approved"},
    "Approved": {"Type": "Pass", "End": True}}}


def test_save_as_test_downloads_a_test_case_that_runs(page: Any, console: Console, tmp_path: Path,
                                                      sfn_emulator: Any) -> None:
    machine = f"approvals-{uuid.uuid4().hex[:8]}"
    execution_arn = console.start(console.machine(machine, CALLBACK), "approved-once", {"order": 12})
    page.goto(f"{console.url}#/execution/{execution_arn}")
    expect(page.locator("#save-as-test")).to_have_count(0)  # not while it runs: nothing to expect yet
    card = page.locator(f'.callback[data-execution="{execution_arn}"]')
    card.locator("textarea[name=output]").fill('{"approved": true}')
    card.get_by_role("button", name="Send success").click()
    expect(page.locator("#execution-status")).to_have_text("SUCCEEDED")

    with page.expect_download() as download_info:
        page.locator("#save-as-test").click()
    download = download_info.value
    assert download.suggested_filename == "approved-once.zip"
    archive = zipfile.ZipFile(io.BytesIO(Path(download.path()).read_bytes()))
    assert sorted(archive.namelist()) == sorted(["MockConfigFile.json", f"{machine}.asl.json", "approved-once.test.json"])
    mocks = json.loads(archive.read("MockConfigFile.json"))
    assert mocks["StateMachines"][machine]["TestCases"]["approved-once"] == {"Approve": "approved-once.Approve"}
    assert mocks["MockedResponses"]["approved-once.Approve"] == {"0": {"Return": {"approved": True}}}
    case = json.loads(archive.read("approved-once.test.json"))
    assert case["input"] == {"order": 12}
    assert case["expect"] == {"status": "SUCCEEDED", "output": {"order": 12, "approval": {"approved": True}}}

    archive.extractall(tmp_path)
    sfn_emulator.run_test_case(tmp_path)


def test_save_as_test_of_an_unknown_execution_is_a_404(console: Console) -> None:
    import urllib.error
    import urllib.request

    missing = "arn:aws:states:us-east-1:123456789012:execution:nobody:nothing"
    try:
        urllib.request.urlopen(f"{console.url}api/test-case?arn={missing}", timeout=30)  # noqa: S310
    except urllib.error.HTTPError as error:
        assert error.code == 404
        assert "nothing" in json.loads(error.read())["message"]
    else:
        raise AssertionError("expected a 404")
