"""File discovery: what a run checks, in what order, and what it reports on the way."""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path

import pytest

from checker.reading.discovery import (
    DEFAULT_EXCLUDES,
    DiscoveryProblem,
    MissingPathError,
    Source,
    SpecialFile,
    discover,
)


def touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")


def shown(paths: list[str], exclude: tuple[str, ...] = ()) -> list[str]:
    """The displayed path of every source, failing on any problem."""
    items = list(discover(paths, exclude))
    problems = [item for item in items if isinstance(item, DiscoveryProblem)]
    assert not problems, problems
    return [item.display for item in items if isinstance(item, Source)]


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding a small project; paths in tests are relative to it."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_walks_directories_recursively_for_py_files_only(tree: Path) -> None:
    touch(tree, "src/b.py", "src/a.py", "src/pkg/c.py", "src/notes.txt", "src/stub.pyi", "src/setup.cfg")
    assert shown(["src"]) == ["src/a.py", "src/b.py", "src/pkg/c.py"]


def test_order_is_by_name_depth_first_whatever_the_creation_order(tree: Path) -> None:
    touch(tree, "z.py", "m/z.py", "a.py", "m/a.py", "b/y.py")
    assert shown(["."]) == ["a.py", "b/y.py", "m/a.py", "m/z.py", "z.py"]


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        pytest.param(".", "pkg/a.py", id="dot-is-dropped"),
        pytest.param("./pkg", "pkg/a.py", id="leading-dot-slash-is-dropped"),
        pytest.param("pkg/", "pkg/a.py", id="trailing-slash-is-dropped"),
        pytest.param("pkg", "pkg/a.py", id="plain-directory"),
        pytest.param("./pkg/a.py", "pkg/a.py", id="explicit-file"),
    ],
)
def test_displayed_paths_follow_the_argument(tree: Path, argument: str, expected: str) -> None:
    touch(tree, "pkg/a.py")
    assert shown([argument]) == [expected]


def test_absolute_arguments_give_absolute_paths(tree: Path) -> None:
    touch(tree, "pkg/a.py")
    assert shown([str(tree / "pkg")]) == [f"{tree}/pkg/a.py"]


@pytest.mark.parametrize("name", sorted(DEFAULT_EXCLUDES))
def test_default_excludes_are_skipped_while_walking(tree: Path, name: str) -> None:
    touch(tree, f"{name}/a.py", f"src/{name}/b.py", "src/kept.py")
    assert shown(["."]) == ["src/kept.py"]


def test_a_default_excluded_directory_named_explicitly_is_walked(tree: Path) -> None:
    touch(tree, "build/gen.py")
    assert shown(["build"]) == ["build/gen.py"]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        pytest.param("gen", ["pkg/a.py", "tests/test_a.py"], id="directory-name"),
        pytest.param("gen/", ["pkg/a.py", "tests/test_a.py"], id="directory-name-trailing-slash"),
        pytest.param("test_*.py", ["pkg/a.py", "pkg/gen/g.py"], id="file-name-glob"),
        pytest.param("pkg/gen/*", ["pkg/a.py", "tests/test_a.py"], id="relative-path-glob"),
        pytest.param("pkg/gen", ["pkg/a.py", "tests/test_a.py"], id="relative-directory-path"),
        pytest.param("nothing-matches", ["pkg/a.py", "pkg/gen/g.py", "tests/test_a.py"], id="no-match"),
    ],
)
def test_exclude_patterns_match_names_and_relative_paths(tree: Path, pattern: str, expected: list[str]) -> None:
    touch(tree, "pkg/a.py", "pkg/gen/g.py", "tests/test_a.py")
    assert shown(["."], (pattern,)) == expected


def test_exclude_patterns_also_match_the_displayed_path(tree: Path) -> None:
    touch(tree, "src/gen/g.py", "src/a.py")
    # Relative to the argument the directory is "gen"; the user wrote what they see.
    assert shown(["src"], ("src/gen",)) == ["src/a.py"]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("build/gen.py", id="inside-default-excluded-directory"),
        pytest.param("test_a.py", id="matching-exclude-pattern"),
        pytest.param("script", id="no-py-suffix"),
        pytest.param("notes.txt", id="other-suffix"),
    ],
)
def test_explicit_files_are_always_checked(tree: Path, name: str) -> None:
    touch(tree, name)
    assert shown([name], ("test_*", "*.txt", "build")) == [name]


def test_a_directory_named_like_a_python_file_is_walked(tree: Path) -> None:
    touch(tree, "pkg.py/inner.py")
    assert shown(["."]) == ["pkg.py/inner.py"]
    assert shown(["pkg.py"]) == ["pkg.py/inner.py"]


def test_each_file_is_yielded_once(tree: Path) -> None:
    touch(tree, "pkg/a.py", "pkg/sub/b.py")
    assert shown(["pkg", "pkg/a.py", "pkg", "pkg/sub", "./pkg/a.py"]) == ["pkg/a.py", "pkg/sub/b.py"]


def test_arguments_are_taken_in_the_order_given(tree: Path) -> None:
    touch(tree, "a.py", "b.py")
    assert shown(["b.py", "a.py"]) == ["b.py", "a.py"]


def test_a_missing_path_is_a_usage_error_before_anything_is_yielded(tree: Path) -> None:
    touch(tree, "a.py")
    with pytest.raises(MissingPathError, match=r"^path 'nope/x\.py' does not exist$") as raised:
        discover(["a.py", "nope/x.py"])
    assert raised.value.path == "nope/x.py"


def test_stdin_is_yielded_once_under_its_name(tree: Path) -> None:
    items = list(discover(["-", "-"], stdin_filename="src/piped.py"))
    assert items == [Source(None, "src/piped.py", explicit=True)]
    assert items[0].is_stdin


def test_stdin_default_name(tree: Path) -> None:
    assert [item.display for item in discover(["-"]) if isinstance(item, Source)] == ["<stdin>"]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
class TestSymlinks:
    def test_linked_files_inside_the_tree_are_checked(self, tree: Path) -> None:
        touch(tree, "pkg/real/real.py")
        (tree / "pkg" / "link.py").symlink_to(tree / "pkg" / "real" / "real.py")
        assert shown(["pkg"]) == ["pkg/link.py"]

    def test_linked_files_outside_the_tree_are_not(self, tree: Path) -> None:
        touch(tree, "outside/real.py")
        (tree / "pkg").mkdir()
        (tree / "pkg" / "link.py").symlink_to(tree / "outside" / "real.py")
        assert shown(["pkg"]) == []
        assert shown(["pkg/link.py"]) == ["pkg/link.py"]  # named: checked

    def test_a_file_and_a_link_to_it_are_checked_once(self, tree: Path) -> None:
        touch(tree, "pkg/a.py")
        (tree / "pkg" / "b.py").symlink_to("a.py")
        assert shown(["pkg"]) == ["pkg/a.py"]

    def test_linked_directories_outside_the_tree_are_not_followed(self, tree: Path) -> None:
        touch(tree, "outside/lib/m.py")
        (tree / "pkg").mkdir()
        (tree / "pkg" / "lib").symlink_to(tree / "outside" / "lib", target_is_directory=True)
        assert shown(["pkg"]) == []
        assert shown(["pkg/lib"]) == ["pkg/lib/m.py"]  # named: walked

    def test_a_directory_reached_twice_is_walked_once(self, tree: Path) -> None:
        touch(tree, "pkg/real/m.py")
        (tree / "pkg" / "alias1").symlink_to("real", target_is_directory=True)
        (tree / "pkg" / "alias2").symlink_to("real", target_is_directory=True)
        assert shown(["pkg"]) == ["pkg/alias1/m.py"]

    @pytest.mark.parametrize(
        "target",
        [pytest.param(".", id="link-to-itself"), pytest.param("..", id="link-to-parent")],
    )
    def test_a_loop_ends_with_a_note(self, tree: Path, target: str) -> None:
        touch(tree, "pkg/sub/m.py")
        (tree / "pkg" / "sub" / "loop").symlink_to(target, target_is_directory=True)
        items = list(discover(["pkg"]))
        assert [item.display for item in items if isinstance(item, Source)] == ["pkg/sub/m.py"]
        problems = [item for item in items if isinstance(item, DiscoveryProblem)]
        assert len(problems) == 1
        assert problems[0].path == "pkg/sub/loop"
        assert "symbolic link loop" in str(problems[0])
        assert str(problems[0]).startswith("skipped 'pkg/sub/loop': ")

    def test_mutual_links_inside_one_tree_walk_each_directory_once(self, tree: Path) -> None:
        touch(tree, "top/a/x.py", "top/b/y.py")
        (tree / "top" / "a" / "to_b").symlink_to(tree / "top" / "b", target_is_directory=True)
        (tree / "top" / "b" / "to_a").symlink_to(tree / "top" / "a", target_is_directory=True)
        assert list(discover(["top"])) == [Source("top/a/x.py", "top/a/x.py"), Source("top/b/y.py", "top/b/y.py")]

    def test_a_mutual_loop_reached_through_a_link_ends_with_a_note(self, tree: Path) -> None:
        touch(tree, "top/real/a/x.py", "top/real/b/y.py")
        (tree / "top" / "real" / "a" / "to_b").symlink_to("../b", target_is_directory=True)
        (tree / "top" / "real" / "b" / "to_a").symlink_to("../a", target_is_directory=True)
        (tree / "top" / "entry").symlink_to("real/a", target_is_directory=True)
        items = list(discover(["top"]))
        assert [item.display for item in items if isinstance(item, Source)] == ["top/entry/to_b/y.py", "top/entry/x.py"]
        assert [item.path for item in items if isinstance(item, DiscoveryProblem)] == ["top/entry/to_b/to_a"]

    def test_links_between_two_trees_named_lead_out_of_each(self, tree: Path) -> None:
        touch(tree, "a/x.py", "b/y.py")
        (tree / "a" / "to_b").symlink_to(tree / "b", target_is_directory=True)
        (tree / "b" / "to_a").symlink_to(tree / "a", target_is_directory=True)
        items = list(discover(["a", "b"]))
        assert items == [Source("a/x.py", "a/x.py"), Source("b/y.py", "b/y.py")]

    def test_a_broken_link_is_yielded_for_the_engine_to_report(self, tree: Path) -> None:
        (tree / "pkg").mkdir()
        (tree / "pkg" / "gone.py").symlink_to("missing.py")
        assert shown(["pkg"]) == ["pkg/gone.py"]

    def test_a_broken_link_named_explicitly_is_not_a_missing_path(self, tree: Path) -> None:
        (tree / "gone.py").symlink_to("missing.py")
        assert shown(["gone.py"]) == ["gone.py"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_yielded_marked_special_so_that_it_is_never_opened(tree: Path) -> None:
    touch(tree, "pkg/a.py")
    os.mkfifo(tree / "pkg" / "pipe.py")
    os.mkfifo(tree / "named")
    items = list(discover(["pkg", "named"]))
    assert [(item.display, item.special) for item in items if isinstance(item, Source)] == [
        ("pkg/a.py", None),
        ("pkg/pipe.py", SpecialFile.FIFO),
        ("named", SpecialFile.FIFO),
    ]


def test_an_unreadable_directory_is_reported_and_the_walk_goes_on(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    touch(tree, "pkg/a_locked/x.py", "pkg/b.py", "pkg/z/y.py")
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if os.path.basename(path) == "a_locked":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    # As root, chmod cannot make a directory unreadable; the failure is injected.
    monkeypatch.setattr(os, "scandir", scandir)
    items = list(discover(["pkg"]))
    assert [item.display for item in items if isinstance(item, Source)] == ["pkg/b.py", "pkg/z/y.py"]
    assert [str(item) for item in items if isinstance(item, DiscoveryProblem)] == [
        "skipped 'pkg/a_locked': cannot read the directory: Permission denied"
    ]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_an_unreadable_directory_on_disk(tree: Path) -> None:
    touch(tree, "pkg/locked/x.py", "pkg/b.py")
    locked = tree / "pkg" / "locked"
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running with privileges that read any directory")
        items = list(discover(["pkg"]))
    finally:
        locked.chmod(0o755)
    assert [item.display for item in items if isinstance(item, Source)] == ["pkg/b.py"]
    assert [item.path for item in items if isinstance(item, DiscoveryProblem)] == ["pkg/locked"]


def test_a_very_deep_tree_does_not_hit_the_recursion_limit(tree: Path) -> None:
    # A tree deeper than the recursion limit, with the limit lowered for the walk
    # only: a tree deeper than the default limit would break shutil.rmtree, and so
    # pytest's clean-up of its temporary directories.
    depth = 400
    relative = Path(*(["d"] * depth))
    touch(tree, str(relative / "leaf.py"))
    walked = discover(["."])
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + depth // 2)
    try:
        items = list(walked)
    finally:
        sys.setrecursionlimit(limit)
    assert [item.display for item in items] == ["d/" * depth + "leaf.py"]
