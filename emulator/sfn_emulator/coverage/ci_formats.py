"""Line coverage files that CI tools read without a plugin of ours: Cobertura XML (coverage-04.dtd:
GitLab, Azure DevOps, Jenkins, Codecov) and SonarQube's generic coverage format. Each state machine
is one block (a Cobertura class, a Sonar file) of the definition file it came from; each state is a
line in it (see `sfn_emulator.coverage.lines`)."""

from __future__ import annotations

import time
from typing import Any
from xml.etree import ElementTree

from msgspec import Struct

from sfn_emulator.coverage.lines import StateLine, state_lines

COBERTURA_DOCTYPE = '<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">'


class PlacedMachine(Struct, frozen=True):
    """A report's machine and the definition file it is shown in (`path` relative to the project root)."""

    machine: dict[str, Any]
    path: str
    text: str

    @property
    def lines(self) -> list[StateLine]:
        return state_lines(self.machine, self.text)


def cobertura_xml(placed: list[PlacedMachine], root: str) -> str:
    """A Cobertura report: one package per definition file, a class per machine, a method per state."""
    measured = [(entry, entry.lines) for entry in placed]
    all_lines = [line for _, lines in measured for line in lines]
    coverage = ElementTree.Element("coverage", _rates(all_lines), version="sfn-emulator",
                                   timestamp=str(int(time.time())), complexity="0")
    ElementTree.SubElement(ElementTree.SubElement(coverage, "sources"), "source").text = root
    packages = ElementTree.SubElement(coverage, "packages")
    by_file: dict[str, list[tuple[PlacedMachine, list[StateLine]]]] = {}
    for entry, lines in measured:
        by_file.setdefault(entry.path, []).append((entry, lines))
    for path, machines in by_file.items():
        file_lines = [line for _, lines in machines for line in lines]
        package = ElementTree.SubElement(packages, "package", _short_rates(file_lines), name=path, complexity="0")
        classes = ElementTree.SubElement(package, "classes")
        for entry, lines in machines:
            klass = ElementTree.SubElement(classes, "class", _short_rates(lines), name=str(entry.machine["name"]),
                                           filename=path, complexity="0")
            methods = ElementTree.SubElement(klass, "methods")
            for line in lines:
                method = ElementTree.SubElement(methods, "method", _short_rates([line]), name=line.state,
                                                signature="", complexity="0")
                _line_element(ElementTree.SubElement(method, "lines"), line)
            class_lines = ElementTree.SubElement(klass, "lines")
            for line in lines:
                _line_element(class_lines, line)
    ElementTree.indent(coverage)
    return f'<?xml version="1.0" ?>\n{COBERTURA_DOCTYPE}\n{ElementTree.tostring(coverage, encoding="unicode")}\n'


def sonar_xml(placed: list[PlacedMachine]) -> str:
    """SonarQube's generic coverage report (`sonar.coverageReportPaths`): a file per definition file."""
    coverage = ElementTree.Element("coverage", version="1")
    files: dict[str, ElementTree.Element] = {}
    for entry in placed:
        element = files.get(entry.path)
        if element is None:
            element = files[entry.path] = ElementTree.SubElement(coverage, "file", path=entry.path)
        for line in entry.lines:
            attributes = {"lineNumber": str(line.line), "covered": "true" if line.covered else "false"}
            if line.branches > 1:
                attributes |= {"branchesToCover": str(line.branches), "coveredBranches": str(line.covered_branches)}
            ElementTree.SubElement(element, "lineToCover", attributes)
    ElementTree.indent(coverage)
    return f'<?xml version="1.0" ?>\n{ElementTree.tostring(coverage, encoding="unicode")}\n'


def _line_element(parent: ElementTree.Element, line: StateLine) -> None:
    attributes = {"number": str(line.line), "hits": "1" if line.covered else "0", "branch": "false"}
    if line.branches > 1:
        share = round(100 * line.covered_branches / line.branches)
        attributes |= {"branch": "true", "condition-coverage": f"{share}% ({line.covered_branches}/{line.branches})"}
    ElementTree.SubElement(parent, "line", attributes)


def _rates(lines: list[StateLine]) -> dict[str, str]:
    """The root's rates with the counts they come from (the DTD asks those of the root only)."""
    covered, total, covered_branches, branches = _counts(lines)
    return {**_short_rates(lines), "lines-covered": str(covered), "lines-valid": str(total),
            "branches-covered": str(covered_branches), "branches-valid": str(branches)}


def _short_rates(lines: list[StateLine]) -> dict[str, str]:
    covered, total, covered_branches, branches = _counts(lines)
    return {"line-rate": _rate(covered, total), "branch-rate": _rate(covered_branches, branches)}


def _counts(lines: list[StateLine]) -> tuple[int, int, int, int]:
    """(lines covered, lines, branches covered, branches), counting branches where a line has several."""
    branching = [line for line in lines if line.branches > 1]
    return (sum(1 for line in lines if line.covered), len(lines),
            sum(line.covered_branches for line in branching), sum(line.branches for line in branching))


def _rate(covered: int, total: int) -> str:
    return f"{covered / total:.4f}" if total else "1"

