"""The torch versions the runtime guard supports are the ones CI tests, stated alike everywhere."""

from __future__ import annotations

import re
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]


def _pins() -> list[str]:
    """The torch versions the Makefile installs for the test venvs."""
    return re.findall(r"^TORCH(?:_\w+)? := torch==(\S+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)


def test_the_runtime_extra_declares_exactly_the_tested_range() -> None:
    pins = sorted(_pins(), key=lambda v: tuple(int(p) for p in v.split(".")))
    assert pins == ["2.13.0", "2.14.1"]
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'runtime = ["torch>={pins[0]},<={pins[-1]}"]' in pyproject


def test_ci_runs_the_runtime_tests_on_every_pinned_version() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert "make test\n" in ci and "make test-2.14\n" in ci
    assert re.search(r"^test-2\.14: .*\n\t.*pytest .*tests/runtime_guard tests/peer", makefile, re.MULTILINE)


def test_the_readme_names_the_supported_versions_and_this_one_is_among_them() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "Supported torch versions: 2.13.0 and 2.14.1" in readme
    assert torch.__version__.split("+")[0] in _pins()
