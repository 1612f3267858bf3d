"""The configuration's glob matcher: fnmatch's pieces, ``**/`` for any number of
directories, and time linear in the path however many ``**/`` there are."""

from __future__ import annotations

import pytest

from checker.reading.globs import glob_matches


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


def _steps(pattern: str, path: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many times the matcher tests one character against one piece of the pattern."""
    import checker.reading.globs

    calls = 0
    takes = checker.reading.globs._Step.takes

    def counted(step: checker.reading.globs._Step, char: str) -> bool:
        nonlocal calls
        calls += 1
        return takes(step, char)

    with monkeypatch.context() as patch:
        patch.setattr(checker.reading.globs._Step, "takes", counted)
        assert not glob_matches(pattern, path + "/y")
        assert glob_matches(pattern, path + "/x")
    return calls


def test_double_stars_cost_linear_work_in_the_pattern_and_the_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """2**30 variants before; now doubling the ``**/`` or the path at most doubles the work
    (counted, not timed)."""
    deep = "/".join(["d"] * 150)
    base = _steps("**/" * 30 + "x", deep, monkeypatch)
    assert base > 0
    assert _steps("**/" * 60 + "x", deep, monkeypatch) <= 2.2 * base
    assert _steps("**/" * 30 + "x", deep + "/" + deep, monkeypatch) <= 2.2 * base
