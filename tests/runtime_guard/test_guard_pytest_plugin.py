"""``--aig-strict`` turns a silent contract violation into a failing test."""

from __future__ import annotations

import os
from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]

#: A violation that passes unnoticed without the guard. Inductor is what a user compiles
#: with; the other sessions trace with backend="eager" (the guard judges the call
#: while Dynamo traces, whatever the backend), which spares an inductor compile each.
SILENT = """
import torch

@torch.compiler.allow_in_graph
def ratio(x):
    return x.shape[0] / 8          # a Python float: baked into the graph (AIG202)

def test_ratio():
    f = torch.compile(lambda x: x * ratio(x + 0), backend="{backend}")
    assert f(torch.ones(4)).tolist() == [0.5] * 4   # passes without the guard
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    # The subprocess runs elsewhere: import this checkout, whatever the install says.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(test_silent=SILENT.format(backend="eager"))
    return pytester


@pytest.fixture
def inductor_suite(suite: pytest.Pytester) -> pytest.Pytester:
    suite.makepyfile(test_silent=SILENT.format(backend="inductor"))
    return suite


#: What the options' parsing decides, asked of the child with nothing compiled.
MODE_SEEN = """
import runtime_guard as rg


def test_the_mode_seen():
    assert rg.installed() and rg.get_strict().value == {mode!r}
"""


def _installed() -> bool:
    """Whether the pytest11 entry point is registered (an install of this checkout)."""
    return any(entry.name == "aigcheck" for entry in entry_points(group="pytest11"))


def run(suite: pytest.Pytester, *options: str) -> pytest.RunResult:
    # Installed, the entry point loads the plugin; otherwise -p loads it the same way.
    load = () if _installed() else ("-p", "runtime_guard.pytest_plugin")
    return suite.runpytest_subprocess(*load, "-p", "no:cacheprovider", *options)


def test_silent_without_the_option(suite: pytest.Pytester) -> None:
    run(suite).assert_outcomes(passed=1)


def test_raise_fails_the_test(inductor_suite: pytest.Pytester) -> None:
    result = run(inductor_suite, "--aig-strict")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*aigcheck: allow_in_graph strict mode 'raise'*", "*AIG202 baked-scalar-return*"])


def test_warn_reports_without_failing(suite: pytest.Pytester) -> None:
    result = run(suite, "--aig-strict=warn")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*ContractWarning*AIG202*"])


def test_invalid_value_is_a_usage_error(suite: pytest.Pytester) -> None:
    result = run(suite, "--aig-strict=loud")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--aig-strict=warn/--aig-strict=raise: ignored explicit argument 'loud'*"])


@pytest.mark.parametrize(
    "options, mode",
    [
        (("--aig-strict", "test_silent.py"), "raise"),
        (("test_silent.py", "--aig-strict"), "raise"),
        (("--aig-strict=warn", "test_silent.py"), "warn"),
        (("test_silent.py", "--aig-strict=warn"), "warn"),
    ],
    ids=["flag-before-path", "flag-after-path", "warn-before-path", "warn-after-path"],
)
def test_the_option_never_takes_the_next_argument(suite: pytest.Pytester, options, mode: str) -> None:
    # The path stays a path (its one test runs) and the option keeps its mode.
    suite.makepyfile(test_silent=MODE_SEEN.format(mode=mode))
    result = run(suite, *options)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"*aigcheck: allow_in_graph strict mode '{mode}'*"])
