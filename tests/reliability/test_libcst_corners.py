"""Valid Python is never AIG900 (issue 12, item 4): where libcst refuses, crashes on or
misreads what CPython accepts, the file is still analysed and its registrations checked,
with findings where they are in the file, and ``--fix`` changes only what it fixes."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from checker.command import cli

REPO = Path(__file__).resolve().parents[2]
CAPTURE = "import torch\nW = torch.ones(2)\n\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x * W\n"


def _findings(*args: str, under: Path | None = None) -> list[tuple[str, int, int, str]]:
    """(file, line, column, code) of each finding: the file by its name, or by its path
    ``under`` a folder (fixtures of two folders may share a name)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        cli.main(["--isolated", "--no-cache", "--output-format", "json", *args])
    found = json.loads(out.getvalue())
    return sorted((_named(Path(f["path"]), under), f["line"], f["column"], f["code"]) for f in found)


def _named(path: Path, under: Path | None) -> str:
    return path.name if under is None else path.resolve().relative_to(under.resolve()).as_posix()


def _fix(path: Path) -> None:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli.main(["--isolated", "--no-cache", "--fix", str(path)])


def test_a_form_feed_before_an_indented_line_is_read_as_cpython_reads_it(tmp_path: Path) -> None:
    # CPython resets the column at a form feed; libcst refused this file as a syntax error.
    source = (
        "import torch\nW = torch.ones(2)\n\ntry:\n    @torch.compiler.allow_in_graph\n"
        "    def f(x):\n\f        return x * W\nexcept ImportError:\n    pass\n"
    )
    ast.parse(source)
    (tmp_path / "ops.py").write_text(source)
    assert _findings(str(tmp_path / "ops.py")) == [("ops.py", 7, 21, "AIG301")]


def _form_feed_every_line(source: str) -> tuple[str, set[int]]:
    """A form feed at the start of every line that does not begin inside a string (the
    same program for CPython), and the lines left alone."""
    inside: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and node.end_lineno and node.end_lineno > node.lineno:
            inside.update(range(node.lineno + 1, node.end_lineno + 1))
    lines = source.split("\n")
    fed = (line if number in inside else "\f" + line for number, line in enumerate(lines, start=1))
    return "\n".join(fed), inside


FIXTURES = sorted(path for path in (REPO / "fixtures").rglob("*.py") if "broken_syntax" not in path.name)


def test_form_feeds_at_line_starts_change_no_finding(tmp_path: Path) -> None:
    """Metamorphic: the fixtures, with a form feed before every line, give the same
    findings at the same lines and columns."""
    plain, fed = tmp_path / "plain", tmp_path / "fed"
    shutil.copytree(REPO / "fixtures", plain)
    shutil.copytree(REPO / "fixtures", fed)
    left_alone: dict[str, set[int]] = {}
    for fixture in FIXTURES:
        relative = fixture.relative_to(REPO / "fixtures")
        fed_source, left_alone[relative.as_posix()] = _form_feed_every_line(fixture.read_text(encoding="utf-8"))
        (fed / relative).write_text(fed_source, encoding="utf-8")
    expected = _findings(str(plain), under=plain)
    assert len(expected) > 20, "the bad fixtures give findings"
    # One more character, the form feed, before each column of a line that got one.
    shifted = sorted(
        (name, line, column + (name in left_alone and line not in left_alone[name]), code)
        for name, line, column, code in expected
    )
    assert _findings(str(fed), under=fed) == shifted


def test_fix_keeps_every_form_feed_and_changes_only_the_fixed_text(tmp_path: Path) -> None:
    source = (
        '"""A module.\n\f\n"""\nimport torch\n\f\n\f@torch._dynamo.allow_in_graph\ndef f(x):\n'
        "\f    return x\n\n\fclass A:\n    def g(self):\n\f        return 1\n"
    )
    path = tmp_path / "ops.py"
    path.write_bytes(source.encode())
    _fix(path)
    assert path.read_bytes() == source.replace("torch._dynamo.allow_in_graph", "torch.compiler.allow_in_graph").encode()


def test_thousands_of_implicitly_concatenated_strings_do_not_hide_the_registration(tmp_path: Path) -> None:
    # libcst refuses about 5,000 parts as a syntax error; CPython accepts them.
    parts = " ".join(["'a'"] * 6000)
    (tmp_path / "ops.py").write_text(CAPTURE + f"\nMESSAGE = ({parts})\n")
    assert _findings(str(tmp_path)) == [("ops.py", 6, 16, "AIG301")]


def test_a_long_boolean_chain_does_not_hide_the_registration(tmp_path: Path) -> None:
    # libcst's native parser crashes at about 7,000 operands; CPython accepts them.
    chain = " and ".join(["a"] * 9000)
    (tmp_path / "ops.py").write_text(CAPTURE.replace("return x * W", f"y = {chain}\n    return x * W"))
    assert _findings(str(tmp_path)) == [("ops.py", 7, 16, "AIG301")]


def test_a_file_whose_expressions_were_elided_is_not_fixed(tmp_path: Path) -> None:
    """Fixed code of an elided file could not be turned back into the file exactly: it is
    reported, not rewritten."""
    chain = " and ".join(["a"] * 9000)
    path = tmp_path / "ops.py"
    path.write_text(f"import torch\n\nOK = {chain}\n\n@torch._dynamo.allow_in_graph\ndef f(x):\n    return x\n")
    before = path.read_bytes()
    _fix(path)
    assert path.read_bytes() == before
    assert _findings(str(path)) == [("ops.py", 5, 2, "AIG407")]


def test_cpython_and_libcst_disagreeing_is_said_plainly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where libcst still refuses a file CPython accepts, AIG900 says so (not 'syntax error')."""
    import checker.reading.libcst_text

    monkeypatch.setattr(checker.reading.libcst_text, "MAX_STRING_PARTS", 10**9)
    parts = " ".join(["'a'"] * 6000)
    (tmp_path / "ops.py").write_text(CAPTURE + f"\nMESSAGE = ({parts})\n")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        cli.main(["--isolated", "--no-cache", "--output-format", "json", str(tmp_path)])
    (finding,) = json.loads(out.getvalue())
    assert finding["code"] == "AIG900"
    assert finding["message"].startswith("libcst cannot parse this file, which CPython accepts")


def test_the_fixtures_still_parse_unchanged_without_form_feeds() -> None:
    """The guard changes nothing of a file that needs none (the common case)."""
    from checker.reading.libcst_text import for_libcst

    for fixture in FIXTURES:
        text = fixture.read_text(encoding="utf-8")
        prepared = for_libcst(text)
        assert (prepared.text, dict(prepared.removed), prepared.elided) == (text, {}, False)


def test_bytes_that_do_not_decode_in_a_comment_do_not_hide_the_registration(tmp_path: Path) -> None:
    """CPython compiles a file with a stray Latin-1 byte in a comment; so is it checked,
    and never rewritten (its text, as read, is not the file's bytes)."""
    path = tmp_path / "ops.py"
    data = CAPTURE.replace("@torch.compiler", "# na\xefve\n@torch._dynamo").encode("latin-1")
    compile(data, "ops.py", "exec")
    path.write_bytes(data)
    assert _findings(str(path)) == [("ops.py", 5, 2, "AIG407"), ("ops.py", 7, 16, "AIG301")]
    _fix(path)
    assert path.read_bytes() == data


def test_bytes_that_do_not_decode_in_a_string_are_still_aig900(tmp_path: Path) -> None:
    path = tmp_path / "ops.py"
    path.write_bytes(CAPTURE.encode() + "NAME = 'na\xefve'\n".encode("latin-1"))
    (finding,) = _findings(str(path))
    assert finding[3] == "AIG900"


def test_a_sum_as_deep_as_cpython_compiles_is_analysed(tmp_path: Path) -> None:
    """A 2,500-term sum compiles (CPython's limit is near 2,900); its registration is
    checked, not refused as too deeply nested."""
    terms = " + ".join(["x"] * 2500)
    source = CAPTURE.replace("return x * W", f"return x * W + {terms}")
    compile(source, "ops.py", "exec")
    (tmp_path / "ops.py").write_text(source)
    assert _findings(str(tmp_path)) == [("ops.py", 6, 16, "AIG301")]
