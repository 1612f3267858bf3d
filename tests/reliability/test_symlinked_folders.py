"""Nothing outside the checked tree is walked or read through a symbolic link, and the
kernel's virtual file systems are never walked (issue 19): a link to a folder outside the
tree was walked and its files reported, and ``ln -s /proc tree/proc`` walked the whole
file system and never ended. As ruff does, a link met while walking a folder is followed
only when it leads inside the folder named on the command line (and then once: a loop is
noted); a path named on the command line is checked wherever it leads."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from processes import aigcheck, found
from projects import CAPTURING_OPS, write

from checker.reading.mounts import virtual_file_system
from checker.reading.packages import project_files

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="POSIX links")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``tree/`` to check, beside ``outside/``, which it links to."""
    write(
        tmp_path,
        dict.fromkeys(["tree/ops.py", "tree/sub/inner.py", "outside/ext.py", "outside/lib/m.py"], CAPTURING_OPS),
    )
    return tmp_path / "tree"


def test_a_link_to_a_folder_outside_the_tree_is_not_walked(tree: Path) -> None:
    (tree / "ext").symlink_to("../outside", target_is_directory=True)
    (tree / "abs").symlink_to(tree.parent / "outside" / "lib", target_is_directory=True)
    result = aigcheck(tree, "--isolated", "--output-format", "json", ".")
    assert found(result) == [("ops.py", "AIG301"), ("sub/inner.py", "AIG301")]
    assert result.stderr == ""


def test_a_link_to_a_file_outside_the_tree_is_not_read(tree: Path) -> None:
    (tree / "ext.py").symlink_to("../outside/ext.py")
    result = aigcheck(tree, "--isolated", "--output-format", "json", ".")
    assert found(result) == [("ops.py", "AIG301"), ("sub/inner.py", "AIG301")]


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_a_link_to_proc_ends(tree: Path) -> None:
    (tree / "proc").symlink_to("/proc", target_is_directory=True)
    (tree / "root").symlink_to("/", target_is_directory=True)
    result = aigcheck(tree, "--isolated", "--output-format", "json", ".")
    assert found(result) == [("ops.py", "AIG301"), ("sub/inner.py", "AIG301")]


def test_a_link_inside_the_tree_is_followed_once(tree: Path) -> None:
    (tree / "alias").symlink_to("sub", target_is_directory=True)
    (tree / "again").symlink_to(tree / "sub", target_is_directory=True)
    (tree / "twin.py").symlink_to("ops.py")
    result = aigcheck(tree, "--isolated", "--output-format", "json", ".")
    # Each real file once, under the first name reached (names are taken in order).
    assert found(result) == [("again/inner.py", "AIG301"), ("ops.py", "AIG301")]


def test_the_tree_is_the_folder_named_not_the_working_directory(tree: Path) -> None:
    (tree / "sub" / "up").symlink_to("..", target_is_directory=True)  # a loop: noted
    (tree / "sub" / "side").symlink_to("../elsewhere", target_is_directory=True)
    write(tree, {"elsewhere/e.py": CAPTURING_OPS})
    result = aigcheck(tree, "--isolated", "--output-format", "json", "sub")
    assert found(result) == [("sub/inner.py", "AIG301")]
    assert result.stderr == ""  # sub/up leads out of sub, so it is no loop of sub: not followed


def test_a_link_named_on_the_command_line_is_followed(tree: Path) -> None:
    (tree / "ext").symlink_to("../outside", target_is_directory=True)
    (tree / "ext.py").symlink_to("../outside/ext.py")
    result = aigcheck(tree, "--isolated", "--output-format", "json", "ext")
    assert found(result) == [("ext/ext.py", "AIG301"), ("ext/lib/m.py", "AIG301")]
    result = aigcheck(tree, "--isolated", "--output-format", "json", "ext.py")
    assert found(result) == [("ext.py", "AIG301")]


@pytest.mark.parametrize("folder", ["/proc", "/sys", "/dev"])
def test_a_virtual_file_system_named_on_the_command_line_is_not_walked(tmp_path: Path, folder: str) -> None:
    if not os.path.isdir(folder):
        pytest.skip(f"no {folder} here")
    result = aigcheck(tmp_path, "--isolated", folder)
    assert (result.returncode, result.stdout) == (0, "No findings.\n")
    assert result.stderr.startswith(f"aigcheck: warning: skipped '{folder}': ")
    assert "virtual file system" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_virtual_file_systems_are_known() -> None:
    assert virtual_file_system("/proc") is not None
    assert virtual_file_system("/proc/self/fd") is not None
    assert virtual_file_system(os.getcwd()) is None


def test_the_project_walk_reads_no_link_out_of_the_project(tree: Path) -> None:
    (tree / "ext.py").symlink_to("../outside/ext.py")
    (tree / "twin.py").symlink_to("ops.py")
    (tree / "ext").symlink_to("../outside", target_is_directory=True)
    listed = sorted(path.relative_to(tree).as_posix() for path in project_files(tree, frozenset()))
    assert listed == ["ops.py", "sub/inner.py", "twin.py"]
