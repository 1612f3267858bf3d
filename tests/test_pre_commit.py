"""The pre-commit hook (``.pre-commit-hooks.yaml``), run by the real ``pre-commit``.

pre-commit installs a hook repository by cloning it at a commit and pip-installing it
into a fresh virtualenv, so these tests need ``git``, the ``pre-commit`` executable (it
comes with the dev extra) and pip access to libcst (PyPI or a configured index).

The repository under test is a *snapshot* of this working tree, committed in a
temporary directory: ``try-repo`` on the checkout itself would see committed and
modified files only, not a new, untracked ``.pre-commit-hooks.yaml``. Nothing is
written into the source tree.

``try-repo`` always installs into a throwaway store of its own, so it costs one
environment build; the other tests share a second one, installed into a
``PRE_COMMIT_HOME`` under the test's temporary directory from the configuration the
README documents.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 600

BAD = """\
import torch

_scale = torch.ones(3)


@torch.compiler.allow_in_graph
def rescale(x: torch.Tensor) -> torch.Tensor:
    return x * _scale
"""
CLEAN = """\
import torch


@torch.compiler.allow_in_graph
def rescale(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return x * scale
"""
BAD_FINDING = "bad.py:8:16: AIG301 [error] rescale: reads tensor '_scale' from the module scope (line 3);"


def _executable(name: str) -> str | None:
    return shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)


PRE_COMMIT = _executable("pre-commit")
GIT = shutil.which("git")
pytestmark = [
    pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed (it comes with the dev extra)"),
    pytest.mark.skipif(GIT is None, reason="git is not installed"),
]


def _env(pre_commit_home: Path | None = None) -> dict[str, str]:
    # GIT_DIR, GIT_INDEX_FILE, ... (set when pytest itself runs inside a git hook) would
    # point every git command below at the wrong repository.
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GIT_", "PRE_COMMIT"))}
    if pre_commit_home is not None:
        env["PRE_COMMIT_HOME"] = str(pre_commit_home)
    return env


def _run(*argv: str | Path, cwd: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(arg) for arg in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )


def _git(*argv: str, cwd: Path) -> str:
    result = _run(GIT or "git", *argv, cwd=cwd, env=_env())
    assert result.returncode == 0, f"git {' '.join(argv)}: {result.stdout}{result.stderr}"
    return result.stdout


def _commit_all(repo: Path) -> str:
    """Commits every file of ``repo`` with a local identity; returns the commit."""
    _git("add", "--all", cwd=repo)
    _git(
        "-c",
        "user.name=aigcheck tests",
        "-c",
        "user.email=tests@aigcheck.invalid",
        "-c",
        "commit.gpgsign=false",
        "commit",
        "--quiet",
        "--no-verify",
        "-m",
        "snapshot",
        cwd=repo,
    )
    return _git("rev-parse", "HEAD", cwd=repo).strip()


def _pre_commit(*argv: str | Path, cwd: Path, home: Path) -> tuple[int, str]:
    result = _run(PRE_COMMIT or "pre-commit", *argv, cwd=cwd, env=_env(home))
    return result.returncode, result.stdout + result.stderr


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This working tree (tracked and untracked files, not ignored ones), committed elsewhere."""
    listed = _run(GIT or "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT, env=_env())
    if listed.returncode != 0:
        pytest.skip(f"{ROOT} is not a git checkout: {listed.stderr.strip()}")
    snapshot = tmp_path_factory.mktemp("hook-repo")
    for name in listed.stdout.split("\0"):
        source = ROOT / name
        # Deleted but still tracked files are listed too; directories are submodules.
        if not name or not (source.is_file() or source.is_symlink()):
            continue
        (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, snapshot / name, follow_symlinks=False)
    _git("init", "--quiet", cwd=snapshot)
    return snapshot, _commit_all(snapshot)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, hook_repo: tuple[Path, str]) -> Path:
    """A project using the hook as the README says, with one bad and one clean file."""
    repo, rev = hook_repo
    project = tmp_path_factory.mktemp("project")
    (project / "bad.py").write_text(BAD)
    (project / "clean.py").write_text(CLEAN)
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {repo}\n    rev: {rev}\n    hooks:\n      - id: aigcheck\n"
    )
    _git("init", "--quiet", cwd=project)
    _git("config", "user.name", "aigcheck tests", cwd=project)
    _git("config", "user.email", "tests@aigcheck.invalid", cwd=project)
    _commit_all(project)
    return project


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory, project: Path) -> Path:
    """A pre-commit store holding the hook's environment, built once for this module."""
    home = tmp_path_factory.mktemp("pre-commit-home")
    status, output = _pre_commit("install-hooks", cwd=project, home=home)
    assert status == 0, output
    return home


def test_try_repo_reports_the_captured_tensor(project: Path, hook_repo: tuple[Path, str], tmp_path: Path) -> None:
    status, output = _pre_commit(
        "try-repo",
        hook_repo[0],
        "aigcheck",
        "--color",
        "never",
        "--files",
        "bad.py",
        "clean.py",
        cwd=project,
        home=tmp_path / "pre-commit-home",
    )
    assert status == 1, output
    assert "aigcheck....." in output and "Failed" in output, output
    assert BAD_FINDING in output, output
    assert "clean.py" not in output, output


def test_clean_file_passes(project: Path, pre_commit_home: Path) -> None:
    status, output = _pre_commit(
        "run", "aigcheck", "--color", "never", "--files", "clean.py", cwd=project, home=pre_commit_home
    )
    assert status == 0, output
    assert "Passed" in output, output


def test_bad_file_fails(project: Path, pre_commit_home: Path) -> None:
    status, output = _pre_commit(
        "run", "aigcheck", "--color", "never", "--files", "bad.py", cwd=project, home=pre_commit_home
    )
    assert status == 1, output
    assert BAD_FINDING in output, output


def test_hook_environment_has_libcst_and_no_torch(pre_commit_home: Path) -> None:
    pythons = sorted(pre_commit_home.glob("*/py_env-*/bin/python")) + sorted(
        pre_commit_home.glob("*/py_env-*/Scripts/python.exe")
    )
    assert len(pythons) == 1, pythons
    probe = "import importlib.util as u; print(*(u.find_spec(m) is not None for m in ('libcst', 'checker', 'torch')))"
    result = _run(pythons[0], "-c", probe, cwd=pre_commit_home, env=_env())
    assert result.stdout.split() == ["True", "True", "False"], result.stdout + result.stderr


def test_manifest_declares_one_serial_python_hook() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    (hook,) = clientlib.load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    assert (hook["id"], hook["entry"], hook["language"], hook["types"]) == (
        "aigcheck",
        "aigcheck --force-exclude",  # pre-commit names every file; the config's exclude must still apply
        "python",
        ["python"],
    )
    # The checker analyses the files of one run together; split runs would miss facts.
    assert hook["require_serial"] is True
    # Nothing beyond the package's own dependencies (libcst): no torch in the hook's environment.
    assert hook["additional_dependencies"] == []
