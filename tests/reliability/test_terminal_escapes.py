"""No analysed byte reaches the terminal as control text (issue 19): source excerpts, codes
echoed from the configuration or the command line, notes and error messages show escape
sequences, carriage returns, bells and bidirectional overrides (the "trojan source" class)
escaped, the way Python writes them in a string literal."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from processes import aigcheck
from projects import write

from checker.output.reporters.base import escape_controls

#: An OSC title change ended by BEL, a carriage return, a screen clear, a right-to-left override.
HOSTILE = "\x1b]0;pwned\x07\r\x1b[2J\u202e"
SHOWN = "\\x1b]0;pwned\\x07\\r\\x1b[2J\\u202e"
#: In source, without the carriage return: Python ends a line there.
IN_SOURCE = HOSTILE.replace("\r", "")
SHOWN_IN_SOURCE = SHOWN.replace("\\r", "")

#: Anything a terminal acts on, but the newline that ends each line: C0 and C1 controls,
#: DEL, the line and paragraph separators and the bidirectional embeddings and isolates.
CONTROL_TEXT = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

OPS = f"""\
import torch

W = torch.ones(3)

@torch.compiler.allow_in_graph
def f(x):
    return x * W  # {IN_SOURCE}
"""


def toml(text: str) -> str:
    """A TOML basic string holding ``text`` (JSON's escapes are TOML's)."""
    return json.dumps(text)


def assert_no_control_text(result: subprocess.CompletedProcess[str]) -> None:
    __tracebackhide__ = True
    for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        assert not CONTROL_TEXT.search(text), f"control text on {name}: {text!r}"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write(tmp_path, {"ops.py": OPS})


def test_a_source_excerpt_shows_control_characters_escaped(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", "--show-source", "ops.py")
    assert_no_control_text(result)
    lines = result.stdout.splitlines()
    assert lines[1] == f" 7 |     return x * W  # {SHOWN_IN_SOURCE}"
    assert lines[2] == "   |                ^"


def test_carets_stay_under_the_span_after_an_escape_before_it(tmp_path: Path) -> None:
    write(tmp_path, {"ops.py": OPS.replace("return x * W", "y = '\x1b\x07'; return x * W")})
    result = aigcheck(tmp_path, "--isolated", "--show-source", "ops.py")
    assert_no_control_text(result)
    source, carets = result.stdout.splitlines()[1:3]
    assert source.startswith(" 7 |     y = '\\x1b\\x07'; return x * W")
    assert source[carets.index("^")] == "W"


def test_a_tab_in_an_excerpt_is_kept_and_the_carets_follow_it(tmp_path: Path) -> None:
    write(tmp_path, {"ops.py": OPS.replace("    return x * W", "\treturn x * W")})
    result = aigcheck(tmp_path, "--isolated", "--show-source", "ops.py")
    source, carets = result.stdout.splitlines()[1:3]
    assert source.startswith(" 7 | \treturn x * W")
    assert carets == "   | \t           ^"


def test_an_unknown_code_on_the_command_line_is_echoed_escaped(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", "--select", f"AIG{HOSTILE}", "ops.py")
    assert result.returncode == 2
    assert_no_control_text(result)
    assert f"unknown rule 'AIG{SHOWN}'" in result.stderr


def test_an_unknown_code_in_the_configuration_is_echoed_escaped(tree: Path) -> None:
    (tree / "pyproject.toml").write_text(f"[tool.aigcheck]\nselect = [{toml('AIG' + HOSTILE)}]\n", encoding="utf-8")
    result = aigcheck(tree, "ops.py")
    assert result.returncode == 2
    assert_no_control_text(result)
    assert f"unknown rule 'AIG{SHOWN}'" in result.stderr


def test_an_unknown_key_and_value_in_the_configuration_are_echoed_escaped(tree: Path) -> None:
    (tree / "pyproject.toml").write_text(f"[tool.aigcheck]\n{toml('k' + HOSTILE)} = 1\n", encoding="utf-8")
    result = aigcheck(tree, "ops.py")
    assert (result.returncode, result.stderr.count("\n")) == (2, 1)
    assert_no_control_text(result)
    (tree / "pyproject.toml").write_text(f"[tool.aigcheck]\noutput-format = {toml(HOSTILE)}\n", encoding="utf-8")
    result = aigcheck(tree, "ops.py")
    assert (result.returncode, result.stderr.count("\n")) == (2, 1)
    assert_no_control_text(result)


def test_an_unknown_option_is_echoed_escaped(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", f"--no{HOSTILE}", "ops.py")
    assert result.returncode == 2
    assert_no_control_text(result)
    assert f"unrecognized arguments: --no{SHOWN}" in result.stderr


def test_a_missing_path_is_named_escaped(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", f"no{HOSTILE}such.py")
    assert result.returncode == 2
    assert_no_control_text(result)
    assert f"no{SHOWN}such.py" in result.stderr


def test_a_configuration_in_a_folder_with_an_escape_in_its_name(tree: Path) -> None:
    folder = tree / f"d{HOSTILE}"
    folder.mkdir()
    (folder / "pyproject.toml").write_text("[tool.aigcheck]\nselect = [1]\n", encoding="utf-8")
    result = aigcheck(tree, "--config", str(folder / "pyproject.toml"), "ops.py")
    assert result.returncode == 2
    assert_no_control_text(result)


def test_a_baseline_named_with_an_escape(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", "--baseline", f"b{HOSTILE}.json", "ops.py")
    assert result.returncode == 2
    assert_no_control_text(result)
    for argv in (["--write-baseline", f"b{HOSTILE}.json"], ["--baseline", f"b{HOSTILE}.json"]):
        result = aigcheck(tree, "--isolated", *argv, "ops.py")
        assert result.returncode == 0, result.stderr
        assert_no_control_text(result)
    assert f"hidden by the baseline b{SHOWN}.json" in result.stdout


@pytest.mark.parametrize("output_format", ["text", "json", "sarif", "github"])
def test_hostile_names_and_source_in_every_format(tmp_path: Path, output_format: str) -> None:
    write(tmp_path, {f"pkg{HOSTILE}/ops{HOSTILE}.py": OPS + f"x = 1  # noqa: AIG301 {IN_SOURCE}\n"})
    result = aigcheck(
        tmp_path,
        "--isolated",
        "--show-source",
        "--statistics",
        "--report-unused-noqa",
        "--output-format",
        output_format,
        ".",
    )
    assert result.returncode == 1, result.stderr
    assert_no_control_text(result)


def test_escape_controls_covers_bidirectional_overrides_and_isolates() -> None:
    text = "".join(chr(code) for code in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
    assert escape_controls(text) == "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069"


def test_escape_controls_shows_the_bytes_of_an_undecodable_name() -> None:
    # os.listdir gives b"bad\xff.py" as "bad\udcff.py" (surrogate escapes).
    assert escape_controls("bad\udcff.py") == "bad\\xff.py"
    assert escape_controls("caf\udcc3\udca9.py") == "caf\\xc3\\xa9.py"


def test_escape_controls_keeps_printable_text() -> None:
    assert escape_controls("café ∑ 日本 'q' \\n") == "café ∑ 日本 'q' \\n"
    assert escape_controls("a\tb", keep="\t") == "a\tb"
