"""Reporters: pure functions from findings to output text.

Whole outputs are compared with golden files under ``golden/``; set
``AIGCHECK_UPDATE_GOLDEN=1`` to rewrite them after an intended change, and review
the diff.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from checker.output.reporters import REPORTERS, RenderOptions, ordered
from checker.output.reporters import json as json_reporter
from checker.output.reporters import text as text_reporter
from checker.spec.findings import Finding, Severity

GOLDEN = Path(__file__).parent / "golden"


def finding(
    path: str = "pkg/a.py",
    line: int = 1,
    column: int = 1,
    code: str = "AIG301",
    severity: Severity = Severity.ERROR,
    end: tuple[int, int] | None = None,
    message: str = "scale: reads tensor 'w' from the module scope (line 3); pass it as an argument.",
) -> Finding:
    end_line, end_column = end or (line, column)
    names = {"AIG301": "captured-tensor", "AIG501": "trace-time-side-effect", "AIG407": "private-api"}
    return Finding(path, line, column, end_line, end_column, code, names.get(code, "parse-error"), severity, message)


# Given out of order on purpose: every reporter sorts.
FINDINGS = [
    finding("pkg/b.py", 7, 8, "AIG501", Severity.WARNING, (7, 13), "f: calls print() while tracing; remove it."),
    finding("pkg/a.py", 4, 12, "AIG301", end=(4, 17)),
    finding("pkg/a.py", 4, 12, "AIG407", Severity.INFO, (4, 17), "use torch.compiler.allow_in_graph."),
    finding("pkg/a.py", 2, 1, "AIG900", message="syntax error: invalid syntax."),
]
SOURCES = {
    "pkg/a.py": ["import torch", "x = (", "", "    return x * scale"],
    "pkg/b.py": ["", "", "", "", "", "", "\tif x:\tprint(x)"],
}


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("AIGCHECK_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == actual, f"{name} differs; see the module docstring"


def test_registry_maps_format_names_to_reporters() -> None:
    assert REPORTERS["text"] is text_reporter.render
    assert REPORTERS["json"] is json_reporter.render


def test_order_is_path_line_column_code() -> None:
    assert [(f.path, f.line, f.code) for f in ordered(FINDINGS)] == [
        ("pkg/a.py", 2, "AIG900"),
        ("pkg/a.py", 4, "AIG301"),
        ("pkg/a.py", 4, "AIG407"),
        ("pkg/b.py", 7, "AIG501"),
    ]


class TestText:
    def test_golden(self) -> None:
        check_golden("text.txt", text_reporter.render(FINDINGS))

    def test_golden_with_source(self) -> None:
        options = RenderOptions(show_source=True, source_lines=SOURCES)
        check_golden("text_source.txt", text_reporter.render(FINDINGS, options))

    def test_one_line_per_finding(self) -> None:
        line = text_reporter.format_finding(finding("x.py", 3, 5, end=(3, 10)))
        assert line == (
            "x.py:3:5: AIG301 [error] scale: reads tensor 'w' from the module scope (line 3); pass it as an argument."
        )

    @pytest.mark.parametrize(
        ("findings", "expected"),
        [
            pytest.param([], "No findings.", id="none"),
            pytest.param([finding()], "Found 1 finding (1 error) in 1 file.", id="one-error"),
            pytest.param(
                [finding(line=1), finding(line=2), finding("b.py", code="AIG501", severity=Severity.WARNING)],
                "Found 3 findings (2 errors, 1 warning) in 2 files.",
                id="errors-and-a-warning",
            ),
            pytest.param(
                [finding(severity=Severity.INFO, line=1), finding(severity=Severity.INFO, line=2)],
                "Found 2 findings (2 info) in 1 file.",
                id="info-is-not-pluralised",
            ),
            pytest.param(
                [finding(severity=s, line=n) for n, s in enumerate([Severity.INFO, Severity.WARNING] * 2, 1)],
                "Found 4 findings (2 warnings, 2 info) in 1 file.",
                id="severities-in-decreasing-order",
            ),
        ],
    )
    def test_summary(self, findings: list[Finding], expected: str) -> None:
        assert text_reporter.summary(findings) == expected
        assert text_reporter.render(findings).splitlines()[-1] == expected

    def test_no_findings_renders_only_the_summary(self) -> None:
        assert text_reporter.render([]) == "No findings.\n"

    def test_summary_can_be_turned_off(self) -> None:
        assert text_reporter.render([], RenderOptions(summary=False)) == ""
        rendered = text_reporter.render([finding()], RenderOptions(summary=False))
        assert rendered == text_reporter.format_finding(finding()) + "\n"

    def test_source_is_shown_only_when_asked(self) -> None:
        plain = text_reporter.render(FINDINGS, RenderOptions(source_lines=SOURCES))
        assert "^" not in plain
        assert "return x * scale" not in plain

    @pytest.mark.parametrize(
        ("source", "column", "end", "carets"),
        [
            pytest.param("y = scale * x", 5, (1, 10), "    ^^^^^", id="single-line-span"),
            pytest.param("y = scale * x", 5, (1, 5), "    ^", id="empty-span-gets-one-caret"),
            pytest.param("y = f(a,", 5, (3, 2), "    ^^^^", id="multi-line-span-to-end-of-line"),
            pytest.param("\ty = scale", 6, (1, 11), "\t    ^^^^^", id="tabs-are-kept-for-alignment"),
            pytest.param("x", 4, (1, 4), "   ^", id="column-past-end-of-line"),
        ],
    )
    def test_caret_line(self, source: str, column: int, end: tuple[int, int], carets: str) -> None:
        options = RenderOptions(show_source=True, source_lines={"a.py": [source, "", ""]})
        lines = text_reporter.render([finding("a.py", 1, column, end=end)], options).splitlines()
        assert lines[1] == f" 1 | {source}"
        assert lines[2] == f"   | {carets}"

    @pytest.mark.parametrize(
        "source_lines",
        [pytest.param({}, id="file-not-available"), pytest.param({"a.py": ["only one line"]}, id="line-out-of-range")],
    )
    def test_missing_source_skips_the_excerpt(self, source_lines: dict[str, list[str]]) -> None:
        options = RenderOptions(show_source=True, source_lines=source_lines)
        rendered = text_reporter.render([finding("a.py", 5)], options)
        assert rendered.splitlines() == [
            text_reporter.format_finding(finding("a.py", 5)),
            "Found 1 finding (1 error) in 1 file.",
        ]

    @pytest.mark.parametrize(
        ("text", "lines"),
        [
            pytest.param("a\nb\n", ["a", "b", ""], id="lf"),
            pytest.param("a\r\nb", ["a", "b"], id="crlf"),
            pytest.param("a\rb", ["a", "b"], id="cr"),
            pytest.param("a\x0cb\nc", ["a\x0cb", "c"], id="form-feed-is-not-a-line-end"),
        ],
    )
    def test_split_lines_numbers_lines_like_python(self, text: str, lines: list[str]) -> None:
        assert text_reporter.split_lines(text) == lines


_ANSI = re.compile(r"\033\[[0-9;]*m")


class TestTextColour:
    """ANSI colour, which the CLI asks for on a terminal only (tests/checker/test_cli.py)."""

    def test_off_by_default(self) -> None:
        assert "\033" not in text_reporter.render(FINDINGS, RenderOptions(show_source=True, source_lines=SOURCES))

    @pytest.mark.parametrize("show_source", [pytest.param(False, id="lines"), pytest.param(True, id="with-source")])
    def test_only_adds_escapes(self, show_source: bool) -> None:
        options = RenderOptions(show_source=show_source, source_lines=SOURCES)
        coloured = text_reporter.render(FINDINGS, options, color=True)
        assert "\033[" in coloured
        assert _ANSI.sub("", coloured) == text_reporter.render(FINDINGS, options)

    @pytest.mark.parametrize(
        ("severity", "escape"),
        [
            pytest.param(Severity.ERROR, "\033[1;31m", id="error-red"),
            pytest.param(Severity.WARNING, "\033[1;33m", id="warning-yellow"),
            pytest.param(Severity.INFO, "\033[1;36m", id="info-cyan"),
        ],
    )
    def test_severity_colours(self, severity: Severity, escape: str) -> None:
        line = text_reporter.format_finding(finding("a.py", severity=severity), color=True)
        assert line.startswith("\033[1ma.py\033[0m:1:1: \033[1mAIG301\033[0m ")
        assert f"{escape}[{severity.value}]\033[0m" in line

    def test_carets_take_the_severity_colour(self) -> None:
        options = RenderOptions(show_source=True, source_lines={"a.py": ["y = scale * x"]})
        lines = text_reporter.render([finding("a.py", 1, 5, end=(1, 10))], options, color=True).splitlines()
        assert lines[2].endswith("\033[1;31m^^^^^\033[0m")


class TestJson:
    def test_golden(self) -> None:
        check_golden("findings.json", json_reporter.render(FINDINGS))

    def test_is_an_array_of_finding_dicts_in_stable_order(self) -> None:
        parsed = json.loads(json_reporter.render(FINDINGS))
        assert parsed == [f.as_dict() for f in ordered(FINDINGS)]
        required = {"path", "line", "column", "end_line", "end_column", "code", "name", "severity", "message"}
        assert set(parsed[0]) >= required

    def test_input_order_does_not_matter(self) -> None:
        assert json_reporter.render(FINDINGS) == json_reporter.render(list(reversed(FINDINGS)))

    def test_no_findings_is_an_empty_array(self) -> None:
        assert json_reporter.render([]) == "[]\n"

    def test_options_do_not_change_json(self) -> None:
        options = RenderOptions(show_source=True, source_lines=SOURCES, summary=False)
        assert json_reporter.render(FINDINGS, options) == json_reporter.render(FINDINGS)

    def test_paths_that_are_not_valid_unicode_are_escaped(self) -> None:
        rendered = json_reporter.render([finding("\udcff.py")])
        rendered.encode("ascii")  # nothing a terminal or a pipe could fail on
        assert json.loads(rendered)[0]["path"] == "\udcff.py"
