"""The ``github`` reporter: GitHub Actions workflow commands, escaped as GitHub's toolkit does.

The golden file is rewritten with ``AIGCHECK_UPDATE_GOLDEN=1`` (see ``test_reporters.py``).
"""

from __future__ import annotations

import pytest
from test_reporters import FINDINGS, SOURCES, check_golden, finding

from checker.output.reporters import REPORTERS, RenderOptions
from checker.output.reporters import github as github_reporter
from checker.spec.findings import Severity


def test_registry_maps_github() -> None:
    assert REPORTERS["github"] is github_reporter.render


def test_golden() -> None:
    check_golden("github.txt", github_reporter.render(FINDINGS))


def test_one_command_per_finding_in_stable_order() -> None:
    lines = github_reporter.render(FINDINGS).splitlines()
    assert len(lines) == len(FINDINGS)
    assert github_reporter.render(FINDINGS) == github_reporter.render(list(reversed(FINDINGS)))


def test_no_findings_prints_nothing() -> None:
    assert github_reporter.render([]) == ""


def test_options_do_not_change_the_output() -> None:
    options = RenderOptions(show_source=True, source_lines=SOURCES, summary=False)
    assert github_reporter.render(FINDINGS, options) == github_reporter.render(FINDINGS)


def test_command_shape() -> None:
    command = github_reporter.command(finding("pkg/a.py", 4, 12, end=(4, 17), message="reads 'w'; pass it."))
    assert command == (
        "::error file=pkg/a.py,line=4,col=12,endLine=4,endColumn=17,title=AIG301 captured-tensor::reads 'w'; pass it."
    )


@pytest.mark.parametrize(
    ("severity", "command"),
    [(Severity.ERROR, "error"), (Severity.WARNING, "warning"), (Severity.INFO, "notice")],
    ids=["error", "warning", "info-is-notice"],
)
def test_severity_chooses_the_command(severity: Severity, command: str) -> None:
    assert github_reporter.command(finding(severity=severity)).startswith(f"::{command} file=")


def test_a_span_over_several_lines_has_no_columns() -> None:
    # GitHub refuses columns on an annotation whose start and end lines differ.
    command = github_reporter.command(finding("a.py", 3, 5, end=(6, 2)))
    assert command.startswith("::error file=a.py,line=3,endLine=6,title=AIG301 captured-tensor::")


@pytest.mark.parametrize(
    ("text", "data", "prop"),
    [
        pytest.param("plain text", "plain text", "plain text", id="plain"),
        pytest.param("100% sure", "100%25 sure", "100%25 sure", id="percent"),
        pytest.param("a\r\nb\nc", "a%0D%0Ab%0Ac", "a%0D%0Ab%0Ac", id="line-breaks"),
        pytest.param("x::y, z", "x::y, z", "x%3A%3Ay%2C z", id="colons-and-commas-only-in-properties"),
        pytest.param("%0A", "%250A", "%250A", id="escapes-are-not-read-back"),
        pytest.param("a\x1b[1m\tb", "a\\x1b[1m\\tb", "a\\x1b[1m\\tb", id="other-controls-shown-escaped"),
    ],
)
def test_escaping(text: str, data: str, prop: str) -> None:
    assert github_reporter.escape_data(text) == data
    assert github_reporter.escape_property(text) == prop


def test_message_and_file_are_escaped_in_the_command() -> None:
    command = github_reporter.command(finding("dir,x/a:b.py", message="line one\nline two: 50%"))
    assert command == (
        "::error file=dir%2Cx/a%3Ab.py,line=1,col=1,endLine=1,endColumn=1,"
        "title=AIG301 captured-tensor::line one%0Aline two: 50%25"
    )
    assert "\n" not in command


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        pytest.param("./pkg/a.py", "pkg/a.py", id="dot-slash"),
        pytest.param("pkg\\a.py", "pkg/a.py", id="backslashes"),
        pytest.param("\udcff.py", "\\xff.py", id="undecodable-bytes"),
    ],
)
def test_file_is_a_workspace_path(path: str, shown: str) -> None:
    assert github_reporter.command(finding(path)).startswith(f"::error file={shown},line=1,")
