"""``--diff`` names each file so that ``patch -p0`` patches that file and no other (issue
19): a folder named ``d\\n+++ victim`` wrote a ``+++ victim/k.py`` header, and piping the
diff to ``patch -p0`` rewrote a bystander. Names are quoted as git quotes them (C-style,
in double quotes, which GNU patch reads), and a name with a space ends in a tab, as git
writes it, so that patch does not take the space for the end of the name."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from processes import aigcheck

from checker.output.diffs import quoted_name, unified_diff

FIXABLE = "import torch\n\n\n@torch._dynamo.allow_in_graph\ndef f(x):\n    return x\n"
FIXED = FIXABLE.replace("torch._dynamo.allow_in_graph", "torch.compiler.allow_in_graph")
#: The very bytes a hunk of the diff matches (a file the run does not check: it is excluded).
BYSTANDER = FIXABLE


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        pytest.param("pkg/k.py", "pkg/k.py", id="plain"),
        pytest.param("d\n+++ victim/k.py", '"d\\n+++ victim/k.py"', id="newline"),
        pytest.param("t\tab.py", '"t\\tab.py"', id="tab"),
        pytest.param("\x1b[31mred.py", '"\\033[31mred.py"', id="escape"),
        pytest.param('say "hi".py', '"say \\"hi\\".py"', id="double-quote"),
        pytest.param("back\\slash.py", '"back\\\\slash.py"', id="backslash"),
        pytest.param("café.py", '"caf\\303\\251.py"', id="non-ascii"),
        pytest.param("bad\udcff.py", '"bad\\377.py"', id="not-utf-8"),
        pytest.param("with space.py", "with space.py\t", id="space"),
    ],
)
def test_names_are_quoted_as_git_quotes_them(name: str, shown: str) -> None:
    assert quoted_name(name) == shown


def test_the_headers_name_the_quoted_file() -> None:
    assert unified_diff("a\n", "b\n", "d\n+++ victim/k.py").splitlines()[:2] == [
        '--- "d\\n+++ victim/k.py"',
        '+++ "d\\n+++ victim/k.py"',
    ]


NAMES = ["d\n+++ victim", "with space", "café", "t\tab", "back\\slash"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    if shutil.which("patch") is None:
        pytest.skip("GNU patch is not installed (apt-get install patch)")
    try:
        for name in NAMES:
            (tmp_path / name).mkdir()
            (tmp_path / name / "k.py").write_text(FIXABLE)
    except OSError as error:  # a file system that refuses such names
        pytest.skip(f"cannot create the folder: {error}")
    (tmp_path / "victim").mkdir()
    (tmp_path / "victim" / "k.py").write_text(BYSTANDER)
    return tmp_path


def patch(tree: Path, diff: str, *options: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["patch", "-p0", "--batch", "--forward", *options],
        cwd=tree,
        input=diff.encode("utf-8", "surrogateescape"),
        capture_output=True,
        timeout=60,
        check=False,
    )


def test_patch_touches_only_the_files_the_diff_is_of(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", "--exclude", "victim", "--diff", ".")
    assert result.returncode == 1, result.stderr
    dry = patch(tree, result.stdout, "--dry-run")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert b"checking file victim/k.py" not in dry.stdout
    applied = patch(tree, result.stdout)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert (tree / "victim" / "k.py").read_text() == BYSTANDER
    assert {name: (tree / name / "k.py").read_text() for name in NAMES} == {name: FIXED for name in NAMES}
    assert sorted(path.name for path in tree.rglob("*") if path.is_file()) == ["k.py"] * (
        len(NAMES) + 1
    )  # no .orig, no .rej
