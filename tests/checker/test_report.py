"""render_run: the report of a run, one function of what the run found and did."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from checker.output.report import Rendering, Tally, render_run
from checker.spec.findings import Finding, Severity

RUN_PY = Path(__file__).resolve().parents[2] / "checker" / "command" / "run.py"
FOUND = (Finding("m.py", 8, 16, 8, 17, "AIG301", "captured-tensor", Severity.ERROR, "reads 'w'"),)


def test_the_text_format_keeps_everything_on_its_stream() -> None:
    rendered = render_run(FOUND, (), Rendering(statistics=True), Tally(fixed=2, fixed_files=1), prog="aigcheck")
    assert rendered.notes == ""
    assert rendered.report == (
        "m.py:8:16: AIG301 [error] reads 'w'\n"
        "1  AIG301  captured-tensor  [error]\n"
        "Found 1 finding (1 error) in 1 file.\n"
        "Fixed 2 findings in 1 file.\n"
    )


def test_a_machine_format_keeps_its_stream_to_itself() -> None:
    rendering = Rendering(output_format="json", statistics=True)
    rendered = render_run(FOUND, (), rendering, Tally(hidden=3, baseline="b.json"), prog="aigcheck")
    assert [item["code"] for item in json.loads(rendered.report)] == ["AIG301"]
    assert rendered.notes == (
        "1  AIG301  captured-tensor  [error]\naigcheck: note: 3 known findings hidden by the baseline b.json.\n"
    )


def test_quiet_leaves_out_the_summary() -> None:
    assert (
        render_run(FOUND, (), Rendering(quiet=True), prog="aigcheck").report == "m.py:8:16: AIG301 [error] reads 'w'\n"
    )


def test_no_summary_of_findings_when_fixes_were_not_written() -> None:
    assert render_run((), (), Rendering(), Tally(unwritten=1), prog="aigcheck").report == ""


def test_the_command_line_renders_its_report_once() -> None:
    """run.py assembles no output of its own: one call of render_run, and no reporter."""
    tree = ast.parse(RUN_PY.read_text(encoding="utf-8"))
    calls = [
        node for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "render_run"
    ]
    reporters = [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module
        and node.module.startswith("checker.output.reporters")
        and node.module != "checker.output.reporters.base"
    ]
    assert (len(calls), reporters) == (1, [])
