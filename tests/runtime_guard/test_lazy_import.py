"""``runtime_guard`` imports lazily: pytest starts where torch is not installed, and where it
is, the plugin imports nothing until ``--aig-strict`` is given.

Each check runs in a new interpreter, since this one imported torch long ago. "Torch is not
installed" is a ``torch`` package early on the path that fails as a missing module does, so
that every process the child starts (pytest's, the checker's workers) meets it too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Seconds a child may take: pytest or the checker starting, never a compile.
TIME_LIMIT = 120

PLAIN_TEST = "def test_plain():\n    assert 1 + 1 == 2\n"

MISSING_TORCH = "raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n"


def _child(
    cwd: Path, *argv: str, without_torch: bool = False, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python argv`` in ``cwd``, importing this checkout (and no torch if ``without_torch``)."""
    path = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    if without_torch:
        hidden = cwd.parent / f"{cwd.name}-no-torch"
        (hidden / "torch").mkdir(parents=True)
        (hidden / "torch" / "__init__.py").write_text(MISSING_TORCH, encoding="utf-8")
        path.insert(0, str(hidden))
    return subprocess.run(
        [sys.executable, *argv],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, path)), "NO_COLOR": "1", **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        check=False,
    )


def _plugin() -> tuple[str, ...]:
    """How pytest loads the plugin: by its ``pytest11`` entry point when this checkout is
    installed, otherwise with ``-p`` (both load it the same way)."""
    installed = any(entry.name == "aigcheck" for entry in entry_points(group="pytest11"))
    return () if installed else ("-p", "runtime_guard.pytest_plugin")


def _pytest(*options: str) -> tuple[str, ...]:
    return ("-m", "pytest", *_plugin(), "-p", "no:cacheprovider", *options)


#: Prints the torch modules imported after the statements given as the first argument.
_IMPORTED_AFTER = """
import sys
exec(sys.argv[1])
print(sorted(name for name in sys.modules if name.partition(".")[0] == "torch"))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "test_plain.py").write_text(PLAIN_TEST, encoding="utf-8")
    return root


def test_importing_the_package_and_its_plugin_imports_no_torch(project: Path) -> None:
    done = _child(project, "-c", _IMPORTED_AFTER, "import runtime_guard, runtime_guard.pytest_plugin")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_names_that_need_no_torch_import_none(project: Path) -> None:
    statement = "from runtime_guard import ContractViolation, Strict, Violation, get_strict, set_strict, strict"
    done = _child(project, "-c", _IMPORTED_AFTER, statement)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


_SESSION = """
import sys
import pytest
status = pytest.main(sys.argv[1:])
print("torch imported:", "torch" in sys.modules)
sys.exit(status)
"""


def test_a_pytest_session_without_the_option_imports_no_torch(project: Path) -> None:
    done = _child(project, "-c", _SESSION, *_pytest()[2:])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert done.stdout.rstrip().endswith("torch imported: False")


def test_pytest_runs_where_torch_is_not_installed(project: Path) -> None:
    done = _child(project, *_pytest(), without_torch=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


@pytest.mark.parametrize("option", ["--aig-strict", "--aig-strict=warn"])
def test_the_option_without_torch_is_one_usage_error_naming_the_extra(project: Path, option: str) -> None:
    done = _child(project, *_pytest(option), without_torch=True)
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith(f"ERROR: {option} needs torch")
    assert 'pip install "aigcheck[runtime]"' in errors[0]
    assert 'pip install -e ".[runtime]"' in errors[0]
    assert "Traceback" not in done.stdout + done.stderr


_PUBLIC_NAMES = """
import runtime_guard.backend  # binds the submodules first, as torch's backend entry point does
import runtime_guard as rg
from runtime_guard import registry
assert registry is rg.registry and isinstance(registry, rg.Registry), registry
assert set(rg.__all__) <= set(dir(rg))
for name in rg.__all__:
    getattr(rg, name)
try:
    rg.no_such_name
except AttributeError as error:
    print(error)
"""


def test_every_public_name_resolves_and_registry_is_the_registry(project: Path) -> None:
    done = _child(project, "-c", _PUBLIC_NAMES)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "module 'runtime_guard' has no attribute 'no_such_name'"


#: A line of ``-X importtime`` output naming a torch module: ``import time: 12 | 34 | torch.nn``.
_TORCH_IMPORT = re.compile(r"^import time:.*\|\s+torch(\.|$)", re.MULTILINE)


def test_the_checker_imports_no_torch(project: Path) -> None:
    (project / "ops.py").write_text(
        "import torch\n\nW = torch.ones(3)\n\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x * W\n",
        encoding="utf-8",
    )
    # PYTHONPROFILEIMPORTTIME reaches the checker's worker processes too.
    done = _child(project, "-m", "checker", "--no-cache", ".", env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert done.returncode == 1, done.stderr[-2000:]
    assert "AIG301" in done.stdout
    assert re.search(r"\|\s+checker\.rules$", done.stderr, re.MULTILINE)  # the profile was written
    assert _TORCH_IMPORT.findall(done.stderr) == []


def test_the_names_type_checkers_see_are_the_names_the_package_gives() -> None:
    """The ``TYPE_CHECKING`` imports, ``__all__`` and what each name resolves to agree."""
    import ast
    import importlib

    import runtime_guard as rg

    tree = ast.parse((ROOT / "runtime_guard" / "__init__.py").read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    seen = {alias.name: node.module for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert sorted(seen) == sorted(rg.__all__)
    for name, module in seen.items():
        assert getattr(rg, name) is getattr(importlib.import_module(str(module)), name), name
