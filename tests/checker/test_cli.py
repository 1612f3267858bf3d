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
from checker import cli, engine
from checker.engine import FileReport
from checker.findings import Finding, Severity
from checker.rules import ALL_RULES, PLANNED

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
            cli, "check_path", lambda path, rules, display_path=None: FileReport(display_path, (found,))
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
        assert out.startswith("odd/caf\\udce9.py:1:1: AIG900")


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
    def stdin(self, monkeypatch: pytest.MonkeyPatch) -> None:
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

    def test_planned_code_gets_a_note(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        planned = next(iter(PLANNED))
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

    def test_explain_planned(self, capsys: pytest.CaptureFixture[str]) -> None:
        code, name = next(iter(PLANNED.items()))
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
