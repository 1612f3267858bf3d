"""The ``aigcheck`` command line, run in-process through ``main()``.

End-to-end findings use AIG900, which needs no other rule: bytes that are not valid
UTF-8 (and carry no coding cookie) cannot be decoded, and the file mentions
``allow_in_graph`` so that it gets past the engine's text pre-filter.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import checker
from checker.command import cli
from checker.command import run as run_module
from checker.output import report as report_module
from checker.output.reporters import REPORTERS
from checker.passes import engine
from checker.passes import session as session_module
from checker.passes.engine import FileReport, LinkedReport
from checker.rules import ALL_RULES, PLANNED
from checker.spec import catalog
from checker.spec.findings import Finding, Severity

REPO = Path(__file__).resolve().parents[2]
UNDECODABLE = b"\xff\xfe # allow_in_graph\n"
CLEAN = b"import torch\n\ndef f(x):\n    return x + 1\n"
CANNOT_DECODE = "AIG900 [error] cannot decode the file: invalid or missing encoding declaration"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with one clean and one undecodable file under ``pkg/``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "clean.py").write_bytes(CLEAN)
    (tmp_path / "pkg" / "bad.py").write_bytes(UNDECODABLE)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


class TestExitStatus:
    def test_clean_tree(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "pkg/clean.py") == (0, "No findings.\n", "")

    def test_findings(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run(capsys, "pkg")
        assert status == 1
        assert out == f"pkg/bad.py:1:1: {CANNOT_DECODE}\nFound 1 finding (1 error) in 1 file.\n"
        assert err == ""

    @pytest.mark.parametrize(
        ("severity", "expected"),
        [
            pytest.param(Severity.INFO, 0, id="info-alone-passes"),
            pytest.param(Severity.WARNING, 1, id="warning-fails"),
            pytest.param(Severity.ERROR, 1, id="error-fails"),
        ],
    )
    def test_fail_on_warning(
        self,
        tree: Path,
        capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch,
        severity: Severity,
        expected: int,
    ) -> None:
        found = Finding("pkg/clean.py", 2, 3, 2, 4, "AIG407", "private-api", severity, "Use the public API.")
        monkeypatch.setattr(
            session_module,
            "check_outcomes",
            lambda jobs, *_, **__: (LinkedReport(FileReport(job.display, (found,))) for job in jobs),
        )
        status, out, _ = run(capsys, "pkg/clean.py")
        assert status == expected
        assert out.splitlines()[0] == f"pkg/clean.py:2:3: AIG407 [{severity.value}] Use the public API."

    def test_internal_error_exits_2_and_the_run_goes_on(
        self, tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        (tree / "pkg" / "crash.py").write_bytes(b"# allow_in_graph\nx = 1\n")
        real = engine._check_text

        def crashing(text: str, path: str, *args: object) -> FileReport:
            if path.endswith("crash.py"):
                raise RuntimeError("boom in a rule")
            return real(text, path, *args)  # type: ignore[arg-type]

        monkeypatch.setattr(engine, "_check_text", crashing)
        status, out, err = run(capsys, "pkg")
        assert status == 2
        # The other files' findings are still printed.
        assert f"pkg/bad.py:1:1: {CANNOT_DECODE}" in out.splitlines()
        assert err.startswith(
            "aigcheck: internal error while checking pkg/crash.py:\nTraceback (most recent call last):\n"
        )
        assert err.rstrip().endswith("RuntimeError: boom in a rule")

    def test_missing_path_is_a_usage_error(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "pkg", "nope.py") == (2, "", "aigcheck: error: path 'nope.py' does not exist\n")

    def test_unknown_option_is_a_usage_error(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run(capsys, "--no-such-option")
        assert (status, out) == (2, "")
        assert "aigcheck: error: unrecognized arguments: --no-such-option" in err

    def test_unknown_output_format_is_a_usage_error(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, _, err = run(capsys, "--output-format", "xml")
        assert status == 2
        assert "invalid choice: 'xml'" in err

    def test_help(self, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(capsys, "--help")
        assert status == 0
        assert out.startswith("usage: aigcheck ")
        for flag in ["--output-format", "--select", "--ignore", "--exclude", "--stdin-filename", "--explain"]:
            assert flag in out


class TestPaths:
    def test_default_path_is_the_working_directory(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(capsys)
        assert status == 1
        assert out.startswith(f"pkg/bad.py:1:1: {CANNOT_DECODE}\n")

    def test_exclude(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "--exclude", "bad.py", ".") == (0, "No findings.\n", "")

    def test_explicit_file_is_checked_even_when_excluded(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(capsys, "--exclude", "bad.py", "pkg/bad.py")
        assert status == 1
        assert out.startswith("pkg/bad.py:1:1: AIG900")

    def test_default_excludes(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        (tree / ".venv" / "lib").mkdir(parents=True)
        (tree / ".venv" / "lib" / "bad.py").write_bytes(UNDECODABLE)
        status, out, _ = run(capsys, ".")
        assert status == 1
        assert ".venv" not in out

    def test_discovery_warnings_go_to_stderr_and_do_not_fail_the_run(
        self, tree: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        (tree / "pkg" / "loop").symlink_to(".", target_is_directory=True)
        status, out, err = run(capsys, "pkg/clean.py", "pkg/loop")
        # pkg/loop is pkg itself: walked once, and its link back to itself noted.
        assert status == 1
        assert "pkg/loop/bad.py:1:1: AIG900" in out
        assert err == (
            "aigcheck: warning: skipped 'pkg/loop/loop': symbolic link loop: it leads back to "
            "'pkg/loop', which contains it; not followed\n"
        )

    def test_file_names_that_are_not_valid_unicode(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        name = os.fsdecode(b"caf\xe9.py")
        try:
            (tree / "odd").mkdir()
            (tree / "odd" / name).write_bytes(UNDECODABLE)
        except (OSError, UnicodeError):
            pytest.skip("the file system does not take such names")
        status, out, _ = run(capsys, "odd")
        assert status == 1
        assert out.startswith("odd/caf\\xe9.py:1:1: AIG900")


class TestOutput:
    def test_json_is_the_only_thing_on_stdout(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run(capsys, "--output-format", "json", "pkg")
        assert status == 1
        assert err == ""
        findings = json.loads(out)
        assert len(findings.pop(0).pop("fingerprint")) == 32 and findings == []
        assert json.loads(out) == [
            {
                "fingerprint": json.loads(out)[0]["fingerprint"],
                "path": "pkg/bad.py",
                "line": 1,
                "column": 1,
                "end_line": 1,
                "end_column": 1,
                "code": "AIG900",
                "name": "parse-error",
                "severity": "error",
                "message": "cannot decode the file: invalid or missing encoding declaration",
            }
        ]

    def test_json_when_clean(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "--output-format", "json", "pkg/clean.py") == (0, "[]\n", "")

    def test_quiet_prints_findings_only(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "-q", "pkg") == (1, f"pkg/bad.py:1:1: {CANNOT_DECODE}\n", "")
        assert run(capsys, "--quiet", "pkg/clean.py") == (0, "", "")

    def test_source_excerpt_on_request(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        (tree / "pkg" / "long.py").write_bytes(b"# allow_in_graph\n" + b"x = 1\n" * 1_500_000)
        _, out, _ = run(capsys, "--show-source", "pkg/long.py")
        assert out.splitlines()[:3] == [
            "pkg/long.py:1:1: AIG900 [error] the file is 8.6 MiB, larger than the 8 MiB analysis limit; "
            "it was not checked",
            " 1 | # allow_in_graph",
            "   | ^",
        ]

    def test_no_source_excerpt_when_not_a_terminal(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        (tree / "pkg" / "long.py").write_bytes(b"# allow_in_graph\n" + b"x = 1\n" * 1_500_000)
        _, out, _ = run(capsys, "pkg/long.py")
        assert "|" not in out


class TestStdin:
    @pytest.fixture
    def stdin(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.chdir(tmp_path)  # away from any configuration above the repository
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(UNDECODABLE)))

    def test_dash_reads_stdin(self, stdin: None, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(capsys, "-")
        assert status == 1
        assert out.startswith(f"<stdin>:1:1: {CANNOT_DECODE}\n")

    def test_stdin_filename_names_it(self, stdin: None, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(capsys, "--stdin-filename", "src/model.py", "-")
        assert status == 1
        assert out.startswith("src/model.py:1:1: AIG900")

    def test_stdin_filename_without_dash_is_a_usage_error(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run(capsys, "--stdin-filename", "x.py", "pkg")
        assert (status, out) == (2, "")
        assert err == "aigcheck: error: --stdin-filename names the source read from '-'; add '-' to the paths\n"


class TestSelection:
    def test_ignore_a_code(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "--ignore", "AIG900", "pkg") == (0, "No findings.\n", "")

    def test_ignore_a_name(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "--ignore", "Parse-Error", "pkg")[0] == 0

    def test_select_a_prefix(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "--select", "AIG9", "pkg")[0] == 1

    def test_unknown_code_is_a_usage_error_listing_valid_codes(
        self, tree: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        status, out, err = run(capsys, "--select", "AIG999", "pkg")
        assert (status, out) == (2, "")
        assert err.startswith("aigcheck: error: --select: unknown rule 'AIG999'; ")
        assert "AIG900 (parse-error)" in err

    def test_planned_code_gets_a_note(
        self, tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(catalog, "PLANNED", {"AIG601": "future-rule"})
        planned = "AIG601"
        status, out, err = run(capsys, "--select", planned, "pkg")
        assert (status, out) == (0, "No findings.\n")
        assert err.startswith(f"aigcheck: note: --select {planned} names only planned rules")


class TestRuleDocumentation:
    def test_list_rules(self, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(capsys, "--list-rules")
        assert status == 0
        lines = out.splitlines()
        assert lines[0].split() == ["CODE", "NAME", "SEVERITY", "SUMMARY"]
        rows = {line.split()[0]: line.split(maxsplit=3) for line in lines[1:]}
        assert sorted(rows) == sorted({rule.code for rule in ALL_RULES} | set(PLANNED))
        for rule in ALL_RULES:
            assert rows[rule.code] == [rule.code, rule.name, rule.severity.value, rule.summary]
        for code, name in PLANNED.items():
            if code not in {rule.code for rule in ALL_RULES}:
                assert rows[code][:3] == [code, name, "planned"]

    @pytest.mark.parametrize("spelling", ["AIG900", "aig900", "parse-error", "PARSE-ERROR"])
    def test_explain(self, capsys: pytest.CaptureFixture[str], spelling: str) -> None:
        status, out, _ = run(capsys, "--explain", spelling)
        assert status == 0
        assert out.startswith("AIG900 parse-error (error)\n\n")
        assert "## What it does" in out
        assert "## Use instead" in out

    def test_explain_every_rule(self, capsys: pytest.CaptureFixture[str]) -> None:
        for rule in ALL_RULES:
            status, out, _ = run(capsys, "--explain", rule.code)
            assert status == 0
            assert rule.documentation() in out

    def test_explain_planned(self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(catalog, "PLANNED", {"AIG601": "future-rule"})
        code, name = "AIG601", "future-rule"
        status, out, _ = run(capsys, "--explain", name)
        assert status == 0
        assert out.startswith(f"{code} ({name}) is planned but not implemented yet")

    def test_explain_unknown(self, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run(capsys, "--explain", "AIG3")
        assert (status, out) == (2, "")
        assert err.startswith("aigcheck: error: --explain: unknown rule 'AIG3'; use a code or a rule name; ")
        assert "AIG900 (parse-error)" in err

    def test_version(self, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "--version") == (0, f"aigcheck {checker.__version__}\n", "")


def test_python_dash_m_checker(tmp_path: Path) -> None:
    """The module entry point works in a fresh interpreter (the only subprocess test)."""
    (tmp_path / "bad.py").write_bytes(UNDECODABLE)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-m", "checker", "--output-format", "json", "bad.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert [finding["code"] for finding in json.loads(result.stdout)] == ["AIG900"]


# AIG407 (info, fixable) on line 6, AIG301 (error) on line 8, AIG501 (warning) on line 13.
SAMPLE = """\
import torch

w = torch.ones(3)


@torch._dynamo.allow_in_graph
def f(x):
    return x * w


@torch.compiler.allow_in_graph
def g(x):
    print(x)
    return x
"""
FIXED = SAMPLE.replace("torch._dynamo.allow_in_graph", "torch.compiler.allow_in_graph")
ONLY_FIXABLE = "import torch\n\n\n@torch._dynamo.allow_in_graph\ndef f(x):\n    return x\n"


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with ``m.py`` holding :data:`SAMPLE`."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(SAMPLE, encoding="utf-8")
    return tmp_path


def set_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


class TestStatistics:
    def test_after_the_findings_and_before_the_summary(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        (sample / "n.py").write_text(SAMPLE.replace("print(x)", "pass"), encoding="utf-8")
        status, out, err = run(capsys, "--statistics", "m.py", "n.py")
        assert (status, err) == (1, "")
        assert len(out.splitlines()) == 5 + 4
        assert out.splitlines()[5:] == [
            "2  AIG301  captured-tensor         [error]",
            "2  AIG407  private-api             [info]",
            "1  AIG501  trace-time-side-effect  [warning]",
            "Found 5 findings (2 errors, 1 warning, 2 info) in 2 files.",
        ]

    def test_table(self) -> None:
        found = [
            Finding("a.py", n, 1, n, 1, code, name, severity, "m")
            for n, (code, name, severity) in enumerate(
                [
                    ("AIG501", "trace-time-side-effect", Severity.WARNING),
                    ("AIG301", "captured-tensor", Severity.ERROR),
                    ("AIG501", "trace-time-side-effect", Severity.WARNING),
                ]
                * 4,
                1,
            )
        ]
        assert report_module.statistics(found) == (
            "8  AIG501  trace-time-side-effect  [warning]\n4  AIG301  captured-tensor         [error]\n"
        )
        assert report_module.statistics([]) == ""

    def test_machine_formats_keep_stdout_to_themselves(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run(capsys, "--statistics", "--output-format", "json", "m.py")
        assert status == 1
        assert [finding["code"] for finding in json.loads(out)] == ["AIG407", "AIG301", "AIG501"]
        assert err.splitlines()[0].split() == ["1", "AIG301", "captured-tensor", "[error]"]

    def test_printed_even_when_quiet(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        lines = run(capsys, "-q", "--statistics", "--select", "AIG301", "m.py")[1].splitlines()
        assert len(lines) == 2
        assert lines[0].startswith("m.py:8:16: AIG301 [error]")
        assert lines[1] == "1  AIG301  captured-tensor  [error]"


class TestExitStatusOptions:
    @pytest.mark.parametrize(
        ("argv", "status"),
        [
            pytest.param([], 1, id="default-fails-on-warning"),
            pytest.param(["--select", "AIG407"], 0, id="info-alone-passes"),
            pytest.param(["--select", "AIG407", "--fail-on", "info"], 1, id="fail-on-info"),
            pytest.param(["--select", "AIG407,AIG501", "--fail-on", "error"], 0, id="fail-on-error-passes-a-warning"),
            pytest.param(["--select", "AIG301", "--fail-on", "error"], 1, id="fail-on-error-fails-an-error"),
            pytest.param(["--exit-zero"], 0, id="exit-zero"),
            pytest.param(["--exit-zero", "--fail-on", "info"], 0, id="exit-zero-wins-over-fail-on"),
        ],
    )
    def test_status(self, sample: Path, capsys: pytest.CaptureFixture[str], argv: list[str], status: int) -> None:
        assert run(capsys, *argv, "m.py")[0] == status

    def test_exit_zero_keeps_2_for_internal_errors(
        self, sample: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(
            session_module,
            "check_outcomes",
            lambda jobs, *_, **__: (LinkedReport(FileReport(job.display, internal_error="boom")) for job in jobs),
        )
        assert run(capsys, "--exit-zero", "m.py")[0] == 2

    def test_exit_zero_keeps_2_for_usage_errors(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "--exit-zero", "--select", "nope", "m.py")[0] == 2

    def test_unknown_fail_on(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, _, err = run(capsys, "--fail-on", "fatal", "m.py")
        assert status == 2
        assert "invalid choice: 'fatal'" in err


class TestUnusedNoqa:
    @pytest.fixture
    def noqa(self, sample: Path) -> Path:
        text = SAMPLE.replace("return x * w", "return x * w  # noqa: AIG301").replace("def g(x):", "def g(x):  # noqa")
        (sample / "m.py").write_text(text, encoding="utf-8")
        return sample

    def test_not_reported_unless_asked(self, noqa: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(capsys, "--select", "AIG301", "m.py")
        assert (status, out) == (0, "No findings.\n")

    def test_reported_in_their_own_lines_and_fail_the_run(self, noqa: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run(capsys, "--select", "AIG301", "--report-unused-noqa", "m.py")
        assert (status, err) == (1, "")
        assert out == (
            "m.py:12:12: unused noqa: '# noqa' suppresses nothing on this line\n"
            "No findings.\n"
            "Found 1 unused noqa comment.\n"
        )

    def test_with_findings_and_exit_zero(self, noqa: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(capsys, "--report-unused-noqa", "--exit-zero", "--select", "AIG3,AIG407", "m.py")
        assert status == 0
        assert out.splitlines() == [
            out.splitlines()[0],
            "m.py:12:12: unused noqa: '# noqa' suppresses nothing on this line",
            "Found 1 finding (1 info) in 1 file.",
            "Found 1 unused noqa comment.",
        ]
        assert out.startswith("m.py:6:2: AIG407 [info]")

    def test_machine_formats_send_them_to_stderr(self, noqa: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run(capsys, "--report-unused-noqa", "--output-format", "json", "--select", "AIG301", "m.py")
        assert (status, json.loads(out)) == (1, [])
        assert err == (
            "m.py:12:12: unused noqa: '# noqa' suppresses nothing on this line\n"
            "aigcheck: note: Found 1 unused noqa comment.\n"
        )

    def test_used_comments_are_not_reported(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        text = SAMPLE.replace("return x * w", "return x * w  # noqa: AIG301")
        (sample / "m.py").write_text(f"# aigcheck: noqa: private-api\n{text}", encoding="utf-8")
        status, out, _ = run(capsys, "--report-unused-noqa", "m.py")
        assert status == 1  # the AIG501 warning
        assert "unused" not in out


class TestFix:
    def test_writes_the_file_and_reports_what_is_left(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run(capsys, "--fix", "m.py")
        assert (status, err) == (1, "")
        assert (sample / "m.py").read_text(encoding="utf-8") == FIXED
        assert [line.split()[1] for line in out.splitlines()[:2]] == ["AIG301", "AIG501"]
        assert out.splitlines()[2:] == [
            "Found 2 findings (1 error, 1 warning) in 1 file.",
            "Fixed 1 finding in 1 file.",
        ]

    def test_exit_0_when_everything_left_is_fixed(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        (sample / "m.py").write_text(ONLY_FIXABLE, encoding="utf-8")
        assert run(capsys, "--fix", "--fail-on", "info", "m.py") == (
            0,
            "No findings.\nFixed 1 finding in 1 file.\n",
            "",
        )

    @pytest.mark.parametrize(
        ("before", "after"),
        [
            pytest.param(
                b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + ONLY_FIXABLE.encode(),
                b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + ONLY_FIXABLE.replace("_dynamo", "compiler").encode(),
                id="latin-1-cookie",
            ),
            pytest.param(
                b"\xef\xbb\xbf" + ONLY_FIXABLE.encode(),
                b"\xef\xbb\xbf" + ONLY_FIXABLE.replace("_dynamo", "compiler").encode(),
                id="utf-8-bom",
            ),
            pytest.param(
                ONLY_FIXABLE.replace("\n", "\r\n").encode(),
                ONLY_FIXABLE.replace("_dynamo", "compiler").replace("\n", "\r\n").encode(),
                id="crlf",
            ),
            pytest.param(
                ONLY_FIXABLE.rstrip("\n").encode(),
                ONLY_FIXABLE.replace("_dynamo", "compiler").rstrip("\n").encode(),
                id="no-final-newline",
            ),
        ],
    )
    def test_keeps_the_bytes_it_does_not_fix(
        self, sample: Path, capsys: pytest.CaptureFixture[str], before: bytes, after: bytes
    ) -> None:
        (sample / "m.py").write_bytes(before)
        assert run(capsys, "--fix", "m.py")[0] == 0
        assert (sample / "m.py").read_bytes() == after

    def test_files_without_fixes_are_not_written(
        self, sample: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        (sample / "m.py").write_text(SAMPLE.replace("_dynamo", "compiler"), encoding="utf-8")
        os.utime(sample / "m.py", (0, 0))
        run(capsys, "--fix", "m.py")
        assert (sample / "m.py").stat().st_mtime == 0

    def test_a_file_that_cannot_be_written_exits_2(
        self, sample: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def refuse(*args: object, **kwargs: object) -> None:
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(os, "replace", refuse)
        status, out, err = run(capsys, "--fix", "m.py")
        assert status == 2
        assert err == "aigcheck: error: cannot write the fixes of m.py: Permission denied; m.py is unchanged\n"
        assert "Fixed" not in out
        assert (sample / "m.py").read_text(encoding="utf-8") == SAMPLE

    def test_stdin_prints_the_fixed_source(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(tmp_path)
        set_stdin(monkeypatch, SAMPLE.encode())
        status, out, err = run(capsys, "--fix", "-")
        assert status == 1
        assert out == FIXED
        assert [line.split()[1] for line in err.splitlines()[:2]] == ["AIG301", "AIG501"]
        assert err.splitlines()[-1] == "Fixed 1 finding in 1 file."

    def test_stdin_without_fixes_prints_the_source_unchanged(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(tmp_path)
        set_stdin(monkeypatch, b"x = 1  # no registration at all\n")
        assert run(capsys, "--fix", "-") == (0, "x = 1  # no registration at all\n", "No findings.\n")

    def test_stdin_with_other_paths_is_a_usage_error(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run(capsys, "--fix", "-", "m.py")
        assert (status, out) == (2, "")
        assert err == (
            "aigcheck: error: --fix on '-' prints the fixed source instead of findings; check '-' on its own\n"
        )


class TestDiff:
    def test_prints_a_diff_and_writes_nothing(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run(capsys, "--diff", "m.py")
        assert status == 1
        assert out == (
            "--- m.py\n+++ m.py\n@@ -3,7 +3,7 @@\n w = torch.ones(3)\n \n \n"
            "-@torch._dynamo.allow_in_graph\n+@torch.compiler.allow_in_graph\n def f(x):\n     return x * w\n \n"
        )
        assert err == "aigcheck: would fix 1 finding in 1 file\n"
        assert (sample / "m.py").read_text(encoding="utf-8") == SAMPLE

    def test_nothing_to_fix(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        (sample / "m.py").write_text(FIXED, encoding="utf-8")
        assert run(capsys, "--diff", "m.py") == (0, "", "")

    def test_exit_zero(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "--diff", "--exit-zero", "m.py")[0] == 0

    def test_wins_over_fix(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "--diff", "--fix", "-q", "m.py")[:2] == (1, run(capsys, "--diff", "-q", "m.py")[1])
        assert (sample / "m.py").read_text(encoding="utf-8") == SAMPLE

    def test_no_newline_at_end_of_file(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        (sample / "m.py").write_text("import torch\ntorch._dynamo.allow_in_graph(len)", encoding="utf-8")
        out = run(capsys, "--diff", "m.py")[1]
        assert out.endswith(
            "-torch._dynamo.allow_in_graph(len)\n\\ No newline at end of file\n"
            "+torch.compiler.allow_in_graph(len)\n\\ No newline at end of file\n"
        )

    def test_stdin(self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.chdir(tmp_path)
        set_stdin(monkeypatch, SAMPLE.encode())
        out = run(capsys, "--diff", "--stdin-filename", "src/m.py", "-")[1]
        assert out.startswith("--- src/m.py\n+++ src/m.py\n")


class TestBaseline:
    def test_write_then_hide(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run(capsys, "--write-baseline", "base.json", "m.py")
        assert (status, out, err) == (0, "", "aigcheck: wrote 3 findings to base.json\n")
        assert [entry["code"] for entry in json.loads((sample / "base.json").read_text())["findings"]] == [
            "AIG407",
            "AIG301",
            "AIG501",
        ]
        assert run(capsys, "--baseline", "base.json", "m.py") == (
            0,
            "No findings.\n3 known findings hidden by the baseline base.json.\n",
            "",
        )

    def test_new_findings_are_still_reported(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        run(capsys, "--write-baseline", "base.json", "m.py")
        # Lines moved by an edit elsewhere keep their fingerprints; the new capture is new.
        edited = "# a new first line\n" + SAMPLE.replace(
            "    print(x)\n    return x\n", "    print(x)\n    return x + w\n"
        )
        (sample / "m.py").write_text(edited, encoding="utf-8")
        status, out, _ = run(capsys, "--baseline", "base.json", "m.py")
        assert status == 1
        assert out.splitlines() == [
            out.splitlines()[0],
            "Found 1 finding (1 error) in 1 file.",
            "3 known findings hidden by the baseline base.json.",
        ]
        assert out.startswith("m.py:15:16: AIG301 [error] g: reads tensor 'w'")

    def test_machine_formats_note_the_hidden_count_on_stderr(
        self, sample: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        run(capsys, "--write-baseline", "base.json", "m.py")
        assert run(capsys, "--baseline", "base.json", "--output-format", "json", "m.py") == (
            0,
            "[]\n",
            "aigcheck: note: 3 known findings hidden by the baseline base.json.\n",
        )

    @pytest.mark.parametrize(
        ("content", "message"),
        [
            pytest.param(None, "no such file", id="missing"),
            pytest.param("{", "not valid JSON", id="not-json"),
            pytest.param('{"tool": "other"}', "not an aigcheck baseline", id="not-a-baseline"),
        ],
    )
    def test_unusable_baseline_exits_2(
        self, sample: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
    ) -> None:
        if content is not None:
            (sample / "base.json").write_text(content, encoding="utf-8")
        status, out, err = run(capsys, "--baseline", "base.json", "m.py")
        assert (status, out) == (2, "")
        assert err.startswith("aigcheck: error: baseline base.json: ")
        assert message in err

    def test_baseline_and_write_baseline_exclude_each_other(
        self, sample: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        status, _, err = run(capsys, "--baseline", "a.json", "--write-baseline", "b.json", "m.py")
        assert status == 2
        assert "not allowed with argument" in err

    def test_write_baseline_with_diff_is_a_usage_error(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "--write-baseline", "b.json", "--diff", "m.py")[0] == 2
        assert not (sample / "b.json").exists()

    def test_not_written_when_a_file_could_not_be_checked(
        self, sample: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(
            session_module,
            "check_outcomes",
            lambda jobs, *_, **__: (LinkedReport(FileReport(job.display, internal_error="boom")) for job in jobs),
        )
        assert run(capsys, "--write-baseline", "b.json", "m.py")[0] == 2
        assert not (sample / "b.json").exists()


class TestOutputFormats:
    def test_choices_come_from_the_reporter_registry(
        self, sample: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setitem(REPORTERS, "count", lambda findings, options=None: f"{len(list(findings))}\n")
        assert run(capsys, "--output-format", "count", "-q", "m.py") == (1, "3\n", "")

    @pytest.mark.parametrize("fmt", sorted(set(REPORTERS) - {"text"}))
    def test_machine_formats_are_never_coloured(
        self, sample: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, fmt: str
    ) -> None:
        monkeypatch.setenv("FORCE_COLOR", "1")
        status, out, _ = run(capsys, "--output-format", fmt, "m.py")
        assert status == 1
        assert "\033[" not in out


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class TestColour:
    @pytest.mark.parametrize(
        ("tty", "env", "expected"),
        [
            pytest.param(True, {}, True, id="terminal"),
            pytest.param(False, {}, False, id="pipe"),
            pytest.param(True, {"NO_COLOR": "1"}, False, id="no-color"),
            pytest.param(True, {"NO_COLOR": ""}, True, id="empty-no-color-is-unset"),
            pytest.param(False, {"FORCE_COLOR": "1"}, True, id="force-color"),
            pytest.param(False, {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, id="no-color-wins"),
            pytest.param(True, {"TERM": "dumb"}, False, id="dumb-terminal"),
        ],
    )
    def test_decision(self, monkeypatch: pytest.MonkeyPatch, tty: bool, env: dict[str, str], expected: bool) -> None:
        for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        assert run_module._use_color(FakeTerminal() if tty else io.StringIO()) is expected

    def test_text_output(
        self, sample: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.delenv("NO_COLOR", raising=False)
        monkeypatch.setenv("FORCE_COLOR", "1")
        out = run(capsys, "--select", "AIG301", "m.py")[1]
        assert out.startswith("\033[1mm.py\033[0m:8:16: \033[1mAIG301\033[0m \033[1;31m[error]\033[0m ")
        assert out.endswith("Found 1 finding (1 error) in 1 file.\n")
