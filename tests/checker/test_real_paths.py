"""The path predicates of a run. ``real_path``: a run resolves each path once, folder by
folder, and must answer exactly as ``Path.resolve`` does, links to folders and files,
dangling links and ``..`` included. ``is_installed``: a string and a path answer alike."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from checker.reading.environment import ImportRoots, is_installed, reading_imports
from checker.reading.packages import real_path, top_package


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "real/pkg/sub").mkdir(parents=True)
    for init in ("real/pkg/__init__.py", "real/pkg/sub/__init__.py"):
        (tmp_path / init).write_text("")
    (tmp_path / "real/pkg/sub/mod.py").write_text("")
    (tmp_path / "linked").symlink_to(tmp_path / "real/pkg", target_is_directory=True)
    (tmp_path / "real/pkg/alias.py").symlink_to(tmp_path / "real/pkg/sub/mod.py")
    (tmp_path / "real/pkg/dangling.py").symlink_to(tmp_path / "nowhere/x.py")
    return tmp_path


PATHS = [
    "real/pkg/sub/mod.py",
    "linked/sub/mod.py",  # through a linked folder
    "real/pkg/alias.py",  # a link to a file
    "linked/alias.py",
    "real/pkg/dangling.py",  # a link to nothing
    "real/pkg/absent.py",  # nothing there
    "linked/absent/deeper.py",
    "linked/sub/../sub/mod.py",  # '..' after a link: the link's target's parent
    "real",
]


@pytest.mark.parametrize("relative", PATHS)
def test_a_run_resolves_as_path_resolve_does(tree: Path, relative: str) -> None:
    with reading_imports(ImportRoots()):
        assert real_path(tree / relative) == (tree / relative).resolve()
        assert real_path(tree / relative) == (tree / relative).resolve()  # asked again: kept


def test_a_relative_path_resolves_from_the_working_directory(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree / "linked")
    with reading_imports(ImportRoots()):
        assert real_path(Path("sub/mod.py")) == Path("sub/mod.py").resolve() == tree / "real/pkg/sub/mod.py"


def test_a_new_run_sees_a_link_changed_since(tree: Path) -> None:
    with reading_imports(ImportRoots()):
        assert top_package(tree / "linked/sub/mod.py") == tree / "real/pkg"
    os.remove(tree / "linked")
    (tree / "other").mkdir()
    (tree / "linked").symlink_to(tree / "other", target_is_directory=True)
    with reading_imports(ImportRoots()):
        assert real_path(tree / "linked/sub/mod.py") == tree / "other/sub/mod.py"
        assert top_package(tree / "linked/sub/mod.py") is None


@pytest.mark.parametrize(
    ("path", "installed"),
    [
        ("env/lib/python3.11/site-packages/extpkg/ops.py", True),
        ("/usr/lib/python3/dist-packages/six.py", True),
        ("site-packages/extpkg/ops.py", True),
        ("src/site-packages-notes/ops.py", False),  # a longer folder name is another folder
        ("src/pkg/site_packages.py", False),
        ("ops.py", False),
    ],
)
def test_a_file_is_installed_when_a_folder_above_it_is_site_packages(path: str, installed: bool) -> None:
    assert is_installed(path) is installed
    assert is_installed(Path(path)) is installed  # a string and a path answer alike
