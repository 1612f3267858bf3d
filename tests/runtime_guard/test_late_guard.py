"""A guard started late: ``install()`` or ``set_strict()`` after a package registered its
functions with torch's ``allow_in_graph`` checks those registrations then (kinds and
captures, reported with their codes, once) and warns once that their calls are not guarded."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import selftest_cases as cases
import torch

import runtime_guard as rg
from runtime_guard.late import LateGuardWarning

#: A package module registering, with torch's name, a function that reads a module-level tensor.
CAPTURING = """\
import torch

W = torch.ones(3)

@torch.compiler.allow_in_graph
def scaled(x):
    return x * W

@torch.compiler.allow_in_graph
def clean(x):
    return x * 2
"""

#: A tensor the torch-owned stand-in reads.
W = torch.ones(3)


def _package(tmp_path: Path) -> object:
    path = tmp_path / "late_package.py"
    path.write_text(CAPTURING, encoding="utf-8")
    return cases.load(path)


def _found(tmp_path: Path) -> list[tuple[str, str]]:
    """(function, code) of each violation recorded for the package."""
    return [(v.function, v.code) for v in rg.registry.violations() if str(tmp_path) in v.site]


def _late_warnings(record: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, LateGuardWarning)]


def test_install_checks_what_was_registered_before_it(tmp_path: Path) -> None:
    package = _package(tmp_path)
    rg.set_strict("warn")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        rg.install()
        rg.install()  # again: nothing new to say
        rg.uninstall()
        rg.install()
    assert _found(tmp_path) == [("scaled", "AIG301")]
    [late] = _late_warnings(record)
    assert "scaled" in late and "clean" in late and "AIGCHECK_STRICT" in late and "install()" in late
    entry = rg.registry.lookup(package.scaled)
    assert entry is not None and entry.checks == {rg.Check.REGISTRATION, rg.Check.BACKEND}
    assert entry.site == f"{tmp_path / 'late_package.py'}:5 (before the guard started)"


def test_set_strict_after_install_checks_them(tmp_path: Path) -> None:
    rg.install()  # in off mode: registrations go to torch as they are
    _package(tmp_path)
    assert _found(tmp_path) == []
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        rg.set_strict("warn")
        rg.set_strict("warn")
    assert _found(tmp_path) == [("scaled", "AIG301")]
    assert len(_late_warnings(record)) == 1


def test_raise_mode_raises_after_checking_them_all(tmp_path: Path) -> None:
    _package(tmp_path)
    rg.set_strict("raise")
    with warnings.catch_warnings(record=True) as record, pytest.raises(rg.ContractViolation) as info:
        warnings.simplefilter("always")
        rg.install()
    assert info.value.code == "AIG301" and info.value.function == "scaled"
    assert rg.installed()
    assert _found(tmp_path) == [("scaled", "AIG301")]
    assert len(_late_warnings(record)) == 1


def test_torch_own_registrations_are_never_reported() -> None:
    # As torch.nn.attention.bias registers torch.backends.cuda.can_use_flash_attention at
    # import, after the baseline the test fixture takes (which counts that one as known).
    def own(x):
        return x * W

    own.__module__ = "torch.nn.attention.bias"
    torch._dynamo.allow_in_graph(own)
    rg.set_strict("warn")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        rg.install()
    assert _late_warnings(record) == []
    assert rg.registry.violations() == []
    assert rg.registry.lookup(own) is None


def test_nothing_is_said_when_the_guard_starts_first(tmp_path: Path) -> None:
    rg.set_strict("warn")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        rg.install()
        package = _package(tmp_path)
    assert _late_warnings(record) == []
    assert _found(tmp_path) == [("scaled", "AIG301")]
    assert rg.registry.lookup(package.scaled).wrapper is package.scaled
