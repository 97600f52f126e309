"""The console's "Save as test": `GET /_emulator/console/api/test-case?arn=EXECUTION_ARN` answers a
zip of the files `sfn-emulator export-test` writes for that execution (`replay.test_case`); mounted
by the composition root beside the console, since the console knows nothing of test cases."""

from __future__ import annotations

import io
import json
import zipfile

from flask import Flask, Response, request

from sfn_emulator.protocol.errors import ApiError
from sfn_emulator.replay.history import HistoryError, history_events
from sfn_emulator.replay.mock_case import mock_case_documents
from sfn_emulator.service import StepFunctionsService
from sfn_emulator.console.api import API_PATH

ROUTE = API_PATH + "test-case"
_PAGE = 1000


def mount_test_case_download(app: Flask, service: StepFunctionsService) -> None:
    @app.get(ROUTE)
    def test_case_download() -> Response:
        arn = request.args.get("arn", "")
        try:
            archive, name = test_case_archive(service, arn)
        except ApiError as error:
            status = 404 if error.code.endswith("DoesNotExist") else error.status
            return _message(error.message or error.code, status)
        except HistoryError as error:
            return _message(str(error), 409)
        return Response(archive, content_type="application/zip",
                        headers={"Content-Disposition": f'attachment; filename="{name}.zip"'})


def test_case_archive(service: StepFunctionsService, execution_arn: str) -> tuple[bytes, str]:
    """The zip of the execution's test case files, and the test case's name (the execution's)."""
    if not execution_arn:
        raise HistoryError("give the query parameter arn: an execution's ARN")
    parts = execution_arn.split(":")
    where = {"account": parts[4], "region": parts[3]} if len(parts) > 4 else {}
    description = service.describe_execution(executionArn=execution_arn, **where)
    machine = service.describe_state_machine(stateMachineArn=description["stateMachineArn"], **where)
    pages, token = [], None
    while True:
        page = service.get_execution_history(executionArn=execution_arn, maxResults=_PAGE, **where,
                                             **({"nextToken": token} if token else {}))
        pages.append(page)
        token = page.get("nextToken")
        if not token:
            break
    documents = mock_case_documents(history_events(pages), state_machine=machine["name"],
                                    test_case=description["name"], definition=machine["definition"])
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file_name, document in documents.items():
            archive.writestr(file_name, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return buffer.getvalue(), description["name"]


def _message(text: str, status: int) -> Response:
    return Response(json.dumps({"message": text}), status=status, content_type="application/json")
