"""Strict mode: the policy enum, the environment default, the context manager and decorator."""

from __future__ import annotations

import subprocess
import sys

import pytest

import runtime_guard as rg


def test_set_and_get() -> None:
    rg.set_strict("warn")
    assert rg.get_strict() is rg.Strict.WARN
    rg.set_strict(rg.Strict.RAISE)
    assert rg.get_strict() == "raise"


def test_invalid_mode_names_the_valid_ones() -> None:
    with pytest.raises(
        ValueError, match=r"set_strict: invalid strict mode 'loud'; expected one of 'off', 'warn', 'raise'"
    ):
        rg.set_strict("loud")
    with pytest.raises(ValueError, match="strict: invalid"):
        rg.strict("loud")


def test_context_manager_restores_and_nests() -> None:
    with rg.strict("warn"):
        assert rg.get_strict() is rg.Strict.WARN
        with rg.strict("raise"):
            assert rg.get_strict() is rg.Strict.RAISE
        assert rg.get_strict() is rg.Strict.WARN
    assert rg.get_strict() is rg.Strict.OFF


def test_decorator() -> None:
    @rg.strict("raise")
    def inside() -> rg.Strict:
        return rg.get_strict()

    assert inside() is rg.Strict.RAISE
    assert rg.get_strict() is rg.Strict.OFF


@pytest.mark.parametrize("value, expected", [("warn", "Strict.WARN"), ("RAISE", "Strict.RAISE"), ("", "Strict.OFF")])
def test_environment_gives_the_default(value: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIGCHECK_STRICT", value)
    code = "import runtime_guard.modes as m; print(m.get_strict())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == expected


def test_invalid_environment_value_fails_with_the_valid_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIGCHECK_STRICT", "yes")
    result = subprocess.run([sys.executable, "-c", "import runtime_guard.modes"], capture_output=True, text=True)
    assert result.returncode != 0
    assert "AIGCHECK_STRICT: invalid strict mode 'yes'; expected one of 'off', 'warn', 'raise'" in result.stderr
