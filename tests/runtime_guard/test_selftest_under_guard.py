"""The self test judges the user's function, never the guard's wrapper: every clean fixture
passes it however it was registered and guarded (off, warn, raise, ``runtime_guard.allow_in_graph``,
``install()`` before or after the import, ``pytest --aig-strict``), and a planted mistake
is still found in each of those ways."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import TypeVar

import pytest
import selftest_cases as cases

import runtime_guard as rg

pytest_plugins = ["pytester"]

T = TypeVar("T")


@dataclass(frozen=True)
class Setup:
    """One way of registering and guarding a package's functions."""

    mode: str
    #: "torch": registered through torch.compiler.allow_in_graph; "guard": through
    #: runtime_guard.allow_in_graph; "install-before-import" / "install-after-import":
    #: through torch's name with install() called before or after the import.
    how: str

    def apply(self, load: Callable[[bool], T]) -> T:
        """What ``load`` returns, loaded in this setup (``load(True)``: through the guard)."""
        if self.how == "install-after-import":
            found = load(False)
            rg.set_strict(self.mode)
            rg.install()
            return found
        rg.set_strict(self.mode)
        if self.how == "install-before-import":
            rg.install()
        return load(self.how == "guard")


SETUPS = [
    Setup("off", "torch"),
    Setup("off", "guard"),
    Setup("warn", "guard"),
    Setup("raise", "guard"),
    Setup("warn", "install-before-import"),
    Setup("raise", "install-before-import"),
    Setup("raise", "install-after-import"),
]
IDS = [f"{setup.mode}-{setup.how}" for setup in SETUPS]


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
def test_every_clean_fixture_passes(setup: Setup) -> None:
    found = setup.apply(cases.clean_cases)
    assert cases.failures(found) == {}


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
def test_a_planted_mistake_is_still_found(setup: Setup, tmp_path: Path) -> None:
    fn = setup.apply(lambda through_guard: cases.planted(through_guard, tmp_path))
    assert "AIG202" in cases.codes_of_planted(fn)


def test_a_wrapper_passed_in_is_judged_as_its_function() -> None:
    rg.set_strict("warn")
    fused = cases.load(cases.GOOD / "fused_ops.py", through_guard=True)
    registration = rg.registry.lookup(fused.rms_norm)
    assert registration is not None and registration.wrapper is fused.rms_norm
    report = rg.check_allow_in_graph(fused.rms_norm, *cases.clean_cases()["rms_norm"][1], runs=cases.RUNS)
    assert report.ok and report.function == "rms_norm" and report.registration == ()


SESSION = """
import sys

sys.path.insert(0, {helpers!r})
import selftest_cases as cases

import runtime_guard as rg

CLEAN = cases.clean_cases()  # registered while the module is collected, as a package is


def test_the_guard_is_on():
    assert rg.installed() and rg.get_strict().value == {mode!r}


def test_every_clean_fixture_passes():
    assert cases.failures(CLEAN) == {{}}


def test_a_planted_mistake_is_still_found(tmp_path):
    assert "AIG202" in cases.codes_of_planted(cases.planted(False, tmp_path))
"""


@pytest.mark.parametrize("option, mode", [("--aig-strict", "raise"), ("--aig-strict=warn", "warn")])
def test_under_pytest_aig_strict(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, option, mode) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(cases.ROOT), os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(test_session=SESSION.format(helpers=str(Path(__file__).parent), mode=mode))
    installed = any(entry.name == "aigcheck" for entry in entry_points(group="pytest11"))
    load = () if installed else ("-p", "runtime_guard.pytest_plugin")
    result = pytester.runpytest_subprocess(*load, "-p", "no:cacheprovider", option)
    result.assert_outcomes(passed=3)
