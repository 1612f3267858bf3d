"""A file name that is not valid UTF-8, or a UTF-8 name under a POSIX locale, loses none of
its findings (issue 19): each was an internal error. In every output format, under
``LC_ALL=C`` (names and streams ASCII, undecodable bytes as surrogate escapes) and under
``C.UTF-8``, every file's findings are reported and a name's undecodable bytes are shown
as the bytes they are (``\\xff``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest
from processes import REPO, TIME_LIMIT
from projects import CAPTURING_OPS, write

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names are bytes")

#: The names on disk: not UTF-8, UTF-8 beyond ASCII, plain, and one inside a package.
NAMES = (b"bad\xff.py", "café.py".encode(), b"ok.py", b"pkg/mod\xfe.py")
LOCALES = ("C", "C.UTF-8")
FORMATS = ("text", "json", "sarif", "github")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write(tmp_path, {"pkg/__init__.py": ""})
    try:
        for name in NAMES:
            with open(os.fsencode(tmp_path) + b"/" + name, "wb") as stream:
                stream.write(CAPTURING_OPS.encode())
    except OSError as error:  # a file system that takes only valid UTF-8 names
        pytest.skip(f"cannot create the file: {error}")
    return tmp_path


def run(tree: Path, locale: str, *argv: str) -> subprocess.CompletedProcess[bytes]:
    """``aigcheck --isolated argv`` under ``locale``, with neither UTF-8 mode nor PYTHONIOENCODING."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("LC_", "LANG", "PYTHONIO"))}
    env.update(LC_ALL=locale, PYTHONUTF8="0", PYTHONPATH=str(REPO), NO_COLOR="1")
    command = [sys.executable, "-m", "checker", "--isolated", *argv]
    return subprocess.run(command, cwd=tree, env=env, capture_output=True, timeout=TIME_LIMIT, check=False)


def on_disk(shown: str) -> bytes:
    """The bytes of a name as the checker's process decoded it (surrogate escapes for the rest)."""
    return shown.encode("utf-8", "surrogateescape")


def shown_in_text(name: bytes, locale: str) -> str:
    """How a line-oriented format shows a name: UTF-8 under a UTF-8 locale, undecodable bytes as ``\\xNN``."""
    text = name.decode("utf-8" if locale == "C.UTF-8" else "ascii", "surrogateescape")
    return "".join(f"\\x{ord(char) - 0xDC00:02x}" if 0xDC80 <= ord(char) <= 0xDCFF else char for char in text)


@pytest.mark.parametrize("output_format", FORMATS)
@pytest.mark.parametrize("locale", LOCALES)
def test_every_file_keeps_its_findings(tree: Path, locale: str, output_format: str) -> None:
    result = run(tree, locale, "--no-cache", "--output-format", output_format, ".")
    assert result.stderr == b""
    assert result.returncode == 1
    if locale == "C":
        result.stdout.decode("ascii")  # what an ASCII terminal can show
    out = result.stdout.decode("utf-8")
    if output_format == "json":
        found = {on_disk(finding["path"]) for finding in json.loads(out)}
    elif output_format == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        locations = [result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for result in results]
        found = {urllib.parse.unquote_to_bytes(uri) for uri in locations}
    else:
        lines = [line for line in out.splitlines() if "AIG301" in line]
        assert len(lines) == len(NAMES)
        shown = {shown_in_text(name, locale) for name in NAMES}
        if output_format == "github":
            found_shown = {line.split("file=", 1)[1].split(",line=", 1)[0] for line in lines}
        else:
            found_shown = {line.split(":", 1)[0] for line in lines}
        assert found_shown == shown
        return
    assert found == set(NAMES)


@pytest.mark.parametrize("locale", LOCALES)
def test_a_name_that_is_not_utf8_named_on_the_command_line(tree: Path, locale: str) -> None:
    result = run(tree, locale, "--no-cache", "--show-source", os.fsdecode(b"bad\xff.py"))
    assert result.stderr == b""
    assert result.returncode == 1
    assert result.stdout.decode("ascii").startswith("bad\\xff.py:7:16: AIG301")


@pytest.mark.parametrize("locale", LOCALES)
def test_the_cache_keeps_them_too(tree: Path, tmp_path_factory: pytest.TempPathFactory, locale: str) -> None:
    cache = str(tmp_path_factory.mktemp("cache"))
    runs = [run(tree, locale, "--output-format", "json", "--cache-dir", cache, ".") for _ in range(2)]
    for result in runs:
        assert (result.returncode, result.stderr) == (1, b"")
        assert {on_disk(finding["path"]) for finding in json.loads(result.stdout)} == set(NAMES)
