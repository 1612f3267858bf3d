"""The configuration's glob matcher: fnmatch's pieces, ``**/`` for any number of
directories, and time linear in the path however many ``**/`` there are."""

from __future__ import annotations

import time

import pytest

from checker.globs import glob_matches


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        pytest.param("a/*.py", "a/b/c.py", True, id="star-crosses-slashes"),
        pytest.param("**/x.py", "x.py", True, id="double-star-no-directory"),
        pytest.param("**/x.py", "a/b/x.py", True, id="double-star-directories"),
        pytest.param("a/**/x.py", "a/x.py", True, id="inner-double-star-none"),
        pytest.param("a/**/x.py", "ab/x.py", False, id="inner-double-star-keeps-the-slash"),
        pytest.param("**/**/**/x", "x", True, id="repeated-double-stars-none"),
        pytest.param("?.py", "/.py", True, id="question-mark-any-character"),
        pytest.param("[!a-c].py", "d.py", True, id="negated-range"),
        pytest.param("[**/].py", "/.py", True, id="double-star-inside-a-class-is-three-characters"),
        pytest.param("[ab", "[ab", True, id="unclosed-bracket-is-literal"),
        pytest.param("X.py", "x.py", False, id="case-sensitive"),
    ],
)
def test_glob_matches(pattern: str, path: str, expected: bool) -> None:
    assert glob_matches(pattern, path) is expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        pytest.param("gen/a/b.py", True, id="a-parent"),
        pytest.param("gen", True, id="the-path-itself"),
        pytest.param("src/gen.py", False, id="neither"),
    ],
)
def test_or_a_parent(path: str, expected: bool) -> None:
    assert glob_matches("gen", path, or_a_parent=True) is expected


def test_thirty_double_stars_against_a_deep_path_is_quick() -> None:
    pattern = "**/" * 30 + "x"
    deep = "/".join(["d"] * 300)
    started = time.perf_counter()
    assert not glob_matches(pattern, deep + "/y")
    assert glob_matches(pattern, deep + "/x")
    assert time.perf_counter() - started < 5  # 2**30 variants before; well under 0.1 s now
