"""A file name holding a newline or an escape sequence is shown escaped by the line-oriented
formats (issue 12): a newline split a text finding in two, and ESC reached the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from processes import aigcheck
from projects import CAPTURING_OPS, write

#: A newline, an escape sequence that turns text red, a tab.
NAME = "two\nlines\x1b[31m\tred.py"
SHOWN = "two\\nlines\\x1b[31m\\tred.py"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    try:
        write(tmp_path, {NAME: CAPTURING_OPS, "ok.py": CAPTURING_OPS})
    except OSError as error:  # a file system that refuses such names
        pytest.skip(f"cannot create the file: {error}")
    return tmp_path


def test_text_shows_one_line_per_finding(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", "--output-format", "text", ".")
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(": ", 2)[:2] for line in lines[:2]] == [
        ["ok.py:7:16", "AIG301 [error] f"],
        [f"{SHOWN}:7:16", "AIG301 [error] f"],
    ]
    assert lines[2:] == ["Found 2 findings (2 errors) in 2 files."]
    assert "\x1b" not in result.stdout


def test_text_in_colour_escapes_the_name_but_keeps_its_own_colours(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", "--output-format", "text", ".", env={"FORCE_COLOR": "1", "NO_COLOR": ""})
    (line,) = [line for line in result.stdout.splitlines() if "two" in line]
    assert line.startswith(f"\x1b[1m{SHOWN}\x1b[0m:7:16: ")


def test_github_annotations_are_one_line_each_and_name_the_file(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", "--output-format", "github", ".")
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    # GitHub reads %0A back as a newline; it has no escape for ESC or TAB, so those are shown.
    assert lines[0].startswith("::error file=ok.py,line=7,")
    assert lines[1].startswith("::error file=two%0Alines\\x1b[31m\\tred.py,line=7,")
    assert "\x1b" not in result.stdout


def test_json_keeps_the_name_exact(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", "--output-format", "json", ".")
    assert sorted(finding["path"] for finding in json.loads(result.stdout)) == ["ok.py", NAME]
