"""``pytest --aig-strict`` (raise) on a package with mistakes found when it is imported:
every mistake is reported in one run, each test that calls a wrong function fails naming
its code, the tests of correct functions pass, and collection never stops the session."""

from __future__ import annotations

import os
from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]

#: Three mistakes the guard finds at registration (module import), and one correct function.
PACKAGE = """
import torch

W = torch.ones(4)
OFFSETS = [1.0, 2.0]


@torch.compiler.allow_in_graph
def captures_tensor(x):
    return x * W                      # AIG301


@torch.compiler.allow_in_graph
def reads_list(x):
    return x + OFFSETS[0]             # AIG302


def make_scale(k):
    @torch.compiler.allow_in_graph
    def scale(x):
        return x * k

    return scale


double = make_scale(2.0)
triple = make_scale(3.0)              # AIG401: the same def again, with another k


@torch.compiler.allow_in_graph
def correct(x, w):
    return x * w
"""

TESTS = """
import torch

import mistakes


def run(fn, *args):
    return torch.compile(lambda *a: fn(*a) + 0, backend="eager")(*args)


def test_correct():
    assert run(mistakes.correct, torch.ones(4), torch.full((4,), 2.0)).tolist() == [2.0] * 4


def test_captures_tensor():
    mistakes.captures_tensor(torch.ones(4))  # eager: plain torch's compile fails on a captured tensor too


def test_reads_list():
    run(mistakes.reads_list, torch.ones(4))


def test_recreated_closure():
    mistakes.triple(torch.ones(4))


def test_uses_nothing_registered():
    assert torch.ones(2).sum() == 2
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(mistakes=PACKAGE, test_package=TESTS)
    return pytester


#: The result of each set of options, run once for the tests that ask the same session
#: different questions (each child pays torch's start-up and a few compiles).
_RUNS: dict[tuple[str, ...], pytest.RunResult] = {}


def run(suite: pytest.Pytester, *options: str) -> pytest.RunResult:
    if options not in _RUNS:
        installed = any(entry.name == "aigcheck" for entry in entry_points(group="pytest11"))
        load = () if installed else ("-p", "runtime_guard.pytest_plugin")
        _RUNS[options] = suite.runpytest_subprocess(*load, "-p", "no:cacheprovider", *options)
    return _RUNS[options]


def test_every_mistake_found_at_import_fails_the_test_that_uses_it(suite: pytest.Pytester) -> None:
    result = run(suite, "--aig-strict")
    result.assert_outcomes(passed=2, failed=3, errors=0)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # Each failure's own section names its code.
    result.stdout.fnmatch_lines(
        [
            "*_ test_captures_tensor _*",
            "E * AIG301 captured-tensor*",
            "*_ test_reads_list _*",
            "E * AIG302 captured-mutable-state*",
            "*_ test_recreated_closure _*",
            "E * AIG401 recreated-closure*",
        ]
    )
    result.stdout.no_fnmatch_line("*FAILED test_package.py::test_correct*")
    result.stdout.no_fnmatch_line("*rror*collecting*")


def test_the_summary_lists_every_violation_of_the_session(suite: pytest.Pytester) -> None:
    result = run(suite, "--aig-strict")
    result.stdout.fnmatch_lines(
        [
            "*aigcheck: 3 allow_in_graph contract violation(s) in strict mode 'raise'*",
            "*allow_in_graph(captures_tensor) registered at *mistakes.py:*: AIG301 captured-tensor*",
            "*allow_in_graph(reads_list) registered at *mistakes.py:*: AIG302 captured-mutable-state*",
            "*allow_in_graph(make_scale.<locals>.scale) registered at *mistakes.py:*: AIG401 *",
        ]
    )


def test_a_mistake_no_test_uses_still_fails_the_session(suite: pytest.Pytester) -> None:
    result = run(suite, "--aig-strict", "-k", "test_correct or uses_nothing")
    result.assert_outcomes(passed=2, deselected=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*aigcheck: 3 allow_in_graph contract violation(s)*found at import*"])


def test_warn_mode_reports_the_same_and_fails_nothing(suite: pytest.Pytester) -> None:
    result = run(suite, "--aig-strict=warn")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["*AIG301*", "*AIG302*", "*AIG401*"], consecutive=False)
