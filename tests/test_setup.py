"""What the Makefile installs, read from ``make -n`` in a copy with no venv (nothing is run),
and the test run's short skip summary (``tests/conftest.py``)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
DEV_EXTRA = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"][
    "dev"
]
#: What the tests need and the demo does not: the dev extra's tools and the peer suite's imports.
TEST_ONLY = {requirement.split(">")[0].split("=")[0] for requirement in DEV_EXTRA} | {"expecttest", "numpy"}
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
OPTIONS_WITH_VALUES = {"--index-url", "--extra-index-url"}

needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def pip_installs(tmp_path: Path, *goal: str) -> list[list[str]]:
    """The arguments after ``pip install`` of each pip command that ``make -n goal`` prints
    in a fresh copy of the Makefile (no .venv, so every install step is due)."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    printed = subprocess.run(
        ["make", "-n", *goal], cwd=tmp_path, capture_output=True, text=True, check=True, timeout=60
    ).stdout
    commands = [shlex.split(line) for line in printed.splitlines() if " pip install " in line]
    return [[word for word in words[words.index("install") + 1 :] if word != "--quiet"] for words in commands]


def packages(arguments: list[str]) -> set[str]:
    """The distribution names that one pip command's arguments install (``-e ".[a,b]"`` gives
    ``.[a]`` and ``.[b]``)."""
    names = set()
    for before, argument in zip(["", *arguments], arguments, strict=False):
        if before in OPTIONS_WITH_VALUES:
            continue
        if argument.startswith(".["):
            names |= {f".[{extra}]" for extra in argument[2:-1].split(",")}
        elif not argument.startswith("-"):
            names.add(argument.split("=")[0].split("<")[0].split(">")[0])
    return names


@needs_make
def test_demo_installs_no_test_tool(tmp_path: Path) -> None:
    installed = set().union(*map(packages, pip_installs(tmp_path, "demo")))
    assert {"torch", ".[runtime]"} <= installed
    assert not installed & (TEST_ONLY | {".[dev]"}), "make demo installs what only the tests use"


@needs_make
def test_test_installs_the_tools_on_top_of_the_demo(tmp_path: Path) -> None:
    installed = set().union(*map(packages, pip_installs(tmp_path, "test")))
    assert {"torch", ".[runtime]", ".[dev]", "expecttest", "numpy"} <= installed


@needs_make
def test_default_torch_comes_from_the_default_index(tmp_path: Path) -> None:
    for arguments in pip_installs(tmp_path, "demo"):
        assert not {"--index-url", "--extra-index-url"} & set(arguments)


@needs_make
@pytest.mark.parametrize("goal", ["demo", "test", "test-2.14"])
def test_torch_index_applies_to_torch_alone(tmp_path: Path, goal: str) -> None:
    commands = pip_installs(tmp_path, goal, f"TORCH_INDEX={CPU_INDEX}")
    with_index = [arguments for arguments in commands if "--index-url" in arguments]
    assert with_index, f"make {goal} TORCH_INDEX=... gives pip no --index-url"
    for arguments in with_index:
        assert arguments[arguments.index("--index-url") + 1] == CPU_INDEX
        assert packages(arguments) == {"torch"}, "only torch comes from TORCH_INDEX"


@needs_make
def test_torch_wheel_replaces_the_requirement(tmp_path: Path) -> None:
    wheel = "/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
    commands = pip_installs(tmp_path, "demo", f"TORCH_WHEEL={wheel}")
    assert [wheel] in commands
    assert not any("torch==2.13.0" in arguments for arguments in commands)
