"""Inputs that must not stop a run: undecodable, unreadable, huge, odd files.

Each file mentions ``allow_in_graph`` where it should get past the engine's text
pre-filter; a file that does not is never even decoded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from checker.api import FileReport, check_file, check_source
from checker.command import cli
from checker.rules import ALL_RULES

RULES = [rule() for rule in ALL_RULES]
#: The analysis limit README.md states ("too large (over 8 MiB)"), which AIG900 names.
MAX_FILE_BYTES = 8 * 1024 * 1024
REPO = Path(__file__).resolve().parents[2]


def check(data: bytes, path: str = "m.py") -> FileReport:
    report = check_source(data, path, rules=RULES)
    assert report.internal_error is None, report.internal_error
    return report


def codes(report: FileReport) -> list[str]:
    return [finding.code for finding in report.findings]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def listing(root: Path) -> list[tuple[str, int, float]]:
    """Every entry under ``root`` (hidden ones too) with its size and modification time."""
    entries = []
    for directory, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(directory, name)
            status = path.lstat()
            entries.append((str(path.relative_to(root)), status.st_size, status.st_mtime))
    return sorted(entries)


class TestEncodings:
    @pytest.mark.parametrize(
        ("data", "reason"),
        [
            pytest.param(b"\xff\xfe allow_in_graph\n", "invalid or missing encoding declaration", id="invalid-utf8"),
            pytest.param(
                b"# allow_in_graph\nname = 'caf\xe9'\n",
                "invalid or missing encoding declaration",
                id="latin1-without-cookie",
            ),
            pytest.param(
                b"# -*- coding: nonsense -*-\n# allow_in_graph\n", "unknown encoding: nonsense", id="unknown-cookie"
            ),
            pytest.param(
                b"\xef\xbb\xbf# -*- coding: latin-1 -*-\n# allow_in_graph\n",
                "encoding problem: utf-8",
                id="bom-contradicts-cookie",
            ),
        ],
    )
    def test_undecodable_is_aig900(self, data: bytes, reason: str) -> None:
        report = check(data)
        assert codes(report) == ["AIG900"]
        assert report.findings[0].message == f"cannot decode the file: {reason}"
        assert (report.findings[0].line, report.findings[0].column) == (1, 1)

    @pytest.mark.parametrize(
        "data",
        [
            pytest.param(
                b"# -*- coding: latin-1 -*-\nfrom torch.compiler import allow_in_graph\nname = 'caf\xe9'\n",
                id="latin1-with-cookie",
            ),
            pytest.param(
                b"\xef\xbb\xbffrom torch.compiler import allow_in_graph\nname = 'caf\xc3\xa9'\n", id="utf8-bom"
            ),
            pytest.param(b"from torch.compiler import allow_in_graph\r\nx = 1\r\n", id="crlf"),
            pytest.param(b"from torch.compiler import allow_in_graph\rx = 1\r", id="cr-only"),
        ],
    )
    def test_decodable_is_parsed(self, data: bytes) -> None:
        report = check(data)
        assert report.parsed
        assert codes(report) == []

    def test_undecodable_through_the_cli(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        (tmp_path / "bad.py").write_bytes(b"\xff\xfe allow_in_graph\n")
        status, out, _ = run(capsys, str(tmp_path / "bad.py"))
        assert status == 1
        assert "bad.py:1:1: AIG900 [error] cannot decode the file" in out


class TestSyntax:
    SOURCE = b"# allow_in_graph\nimport torch\nx = 1 1\ny = 2\n"

    def test_syntax_error_is_aig900(self) -> None:
        report = check(self.SOURCE)
        assert not report.parsed
        assert codes(report) == ["AIG900"]
        assert report.findings[0].message.startswith("syntax error: ")

    def test_syntax_error_points_at_the_right_place(self) -> None:
        # libcst's own position is a line late here (LibCST issues #1028, #1112).
        finding = check(self.SOURCE).findings[0]
        assert (finding.line, finding.column) == (3, 7)  # the second "1"

    def test_syntax_error_through_the_cli(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        (tmp_path / "broken.py").write_bytes(self.SOURCE)
        (tmp_path / "fine.py").write_bytes(b"# allow_in_graph\nx = 1\n")
        status, out, err = run(capsys, "--output-format", "json", str(tmp_path))
        assert (status, err) == (1, "")
        findings = json.loads(out)
        assert [(Path(f["path"]).name, f["code"]) for f in findings] == [("broken.py", "AIG900")]

    def test_null_byte_is_aig900(self) -> None:
        assert codes(check(b"# allow_in_graph\nx = 1\x00\n")) == ["AIG900"]

    @pytest.mark.parametrize(
        "source",
        [
            pytest.param("type X = int\n", id="type-alias-statement"),
            pytest.param("@torch.compiler.allow_in_graph\ndef f[T](x: T) -> T:\n    return x\n", id="generic-function"),
            pytest.param("class Box[T]:\n    item: T\n", id="generic-class"),
            pytest.param('name = f"{d[\'a\'] + f"{x}"}"\n', id="nested-f-string-quotes"),
        ],
    )
    def test_newer_python_syntax_is_not_a_parse_error(self, source: str) -> None:
        # Python 3.12 syntax: the running 3.11 interpreter rejects it, libcst does not.
        data = f"import torch\n\n{source}\n@torch.compiler.allow_in_graph\ndef g(x):\n    return x\n".encode()
        report = check(data)
        assert report.parsed
        assert "AIG900" not in codes(report)


class TestFiles:
    def test_empty_file(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        (tmp_path / "empty.py").write_bytes(b"")
        assert codes(check_file(tmp_path / "empty.py", rules=RULES)) == []
        assert run(capsys, str(tmp_path / "empty.py")) == (0, "No findings.\n", "")

    def test_unreadable_file(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        locked = tmp_path / "locked.py"
        locked.write_bytes(b"# allow_in_graph\n")
        locked.chmod(0)
        try:
            if os.access(locked, os.R_OK):
                pytest.skip("running with privileges that read any file")
            report = check_file(locked, rules=RULES)
            status, out, _ = run(capsys, str(tmp_path))
        finally:
            locked.chmod(0o644)
        assert codes(report) == ["AIG900"]
        assert report.findings[0].message == "cannot read the file: Permission denied"
        assert status == 1
        assert "locked.py:1:1: AIG900 [error] cannot read the file: Permission denied" in out

    def test_read_error_is_aig900_even_as_root(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The same as chmod 000, by making the read itself fail: CI runs as root."""
        (tmp_path / "locked.py").write_bytes(b"# allow_in_graph\n")
        (tmp_path / "fine.py").write_bytes(
            b"import torch\nW = torch.ones(2)\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x * W\n"
        )
        real_open = os.open

        def open_file(path: str | Path, *args: Any, **kwargs: Any) -> int:
            if Path(path).name == "locked.py":
                raise PermissionError(13, "Permission denied")
            return real_open(path, *args, **kwargs)

        monkeypatch.setattr(os, "open", open_file)
        status, out, _ = run(capsys, str(tmp_path))
        assert status == 1
        assert "locked.py:1:1: AIG900 [error] cannot read the file: Permission denied" in out
        assert "fine.py:5:16: AIG301" in out  # the run went on

    def test_broken_link_is_aig900(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        (tmp_path / "gone.py").symlink_to("missing.py")
        status, out, _ = run(capsys, str(tmp_path))
        assert status == 1
        assert "gone.py:1:1: AIG900 [error] cannot read the file: No such file or directory" in out

    def test_directory_named_like_a_python_file(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(tmp_path)
        (tmp_path / "pkg.py").mkdir()
        (tmp_path / "pkg.py" / "inner.py").write_bytes(b"\xff allow_in_graph\n")
        for argument in [".", "pkg.py"]:
            status, out, err = run(capsys, argument)
            assert status == 1
            assert out.splitlines()[0].startswith("pkg.py/inner.py:1:1: AIG900 [error] cannot decode")
            assert "Is a directory" not in out + err

    def test_symlink_loop(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(tmp_path)
        (tmp_path / "a" / "b").mkdir(parents=True)
        (tmp_path / "a" / "b" / "up").symlink_to("..", target_is_directory=True)
        (tmp_path / "a" / "m.py").write_bytes(b"x = 1\n")
        status, out, err = run(capsys, "a")
        assert (status, out) == (0, "No findings.\n")
        assert err == (
            "aigcheck: warning: skipped 'a/b/up': symbolic link loop: it leads back to 'a', "
            "which contains it; not followed\n"
        )

    def test_large_file_mentioning_the_api_is_aig900(self, tmp_path: Path) -> None:
        data = b"# allow_in_graph\n" + b"x = 1\n" * (MAX_FILE_BYTES // 6 + 10)
        (tmp_path / "big.py").write_bytes(data)
        report = check_file(tmp_path / "big.py", rules=RULES)
        assert codes(report) == ["AIG900"]
        assert "larger than the 8 MiB analysis limit" in report.findings[0].message

    def test_large_file_without_the_api_is_not_reported(self, tmp_path: Path) -> None:
        (tmp_path / "big.py").write_bytes(b"x = 1\n" * (MAX_FILE_BYTES // 6 + 10))
        report = check_file(tmp_path / "big.py", rules=RULES)
        assert report.findings == ()
        assert not report.parsed

    def test_deep_nesting_does_not_kill_the_run(self, tmp_path: Path) -> None:
        # libcst's native parser crashes the process on these; CPython's parser refuses them first.
        (tmp_path / "deep.py").write_bytes(b"# allow_in_graph\nx = " + b"(" * 3000 + b")" * 3000 + b"\n")
        (tmp_path / "chain.py").write_bytes(b"# allow_in_graph\nx = " + b"+".join([b"1"] * 10_000) + b"\n")
        (tmp_path / "bad.py").write_bytes(b"\xff allow_in_graph\n")
        # In a child process: a crash here must not take the test session with it.
        result = subprocess.run(
            [sys.executable, "-m", "checker", "--output-format", "json", str(tmp_path)],
            env={**os.environ, "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 1, (result.returncode, result.stderr[-2000:])
        findings = json.loads(result.stdout)
        assert sorted(Path(f["path"]).name for f in findings) == ["bad.py", "chain.py", "deep.py"]
        messages = {Path(f["path"]).name: f["message"] for f in findings}
        assert "too many nested parentheses" in messages["deep.py"]
        assert "nested too deeply" in messages["chain.py"]


def test_nothing_is_written_into_the_checked_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "tree"
    (tree / "pkg" / "sub").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_bytes(b"")
    (tree / "pkg" / "ok.py").write_bytes(b"import torch\ntorch.compiler.allow_in_graph(len)\n")
    (tree / "pkg" / "broken.py").write_bytes(b"# allow_in_graph\nx = (\n")
    (tree / "pkg" / "sub" / "undecodable.py").write_bytes(b"\xff allow_in_graph\n")
    (tree / "pkg" / "sub" / "plain.py").write_bytes(b"x = 1\n")
    before = listing(tree)
    # Run from inside the tree, with relative paths: the likeliest place for a stray cache.
    monkeypatch.chdir(tree)
    for argv in (["."], ["--output-format", "json", "pkg"], ["--show-source", "pkg/broken.py"]):
        cli.main(["--no-cache", *argv])
    capsys.readouterr()
    assert listing(tree) == before
    # With the cache on, the cache folder is the one thing written, and it ignores itself.
    cli.main(["."])
    capsys.readouterr()
    added = sorted(set(listing(tree)) - set(before))
    assert added and all(entry[0].startswith(".aigcheck_cache") for entry in added)
    assert (tree / ".aigcheck_cache" / ".gitignore").read_text().strip().endswith("*")
