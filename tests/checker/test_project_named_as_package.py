"""A project folder named as its package (``pkg/src/pkg``, ``pkg/pkg``): a script's ``from pkg
import config`` finds the regular package ``src/pkg`` (or ``pkg/pkg``), as ``python
scripts/train.py`` with the package installed would, not the project folder taken for a
namespace package (checker/reading/packages.py: a namespace portion yields to a package of
the name on the import roots). A folder that is a namespace package still resolves as one."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import assert_marked, run, write

from checker.api import check_paths

KERNELS = """
    import torch
    from pkg import config


    @torch.compiler.allow_in_graph
    def attention(q):
        if config.USE:  # AIG302
            return q
        return q * 2
"""

#: Spellings of a write of ``config.USE`` from a file beside the package.
WRITES = {
    "from-package-import-module": "from pkg import config\nconfig.USE = False\n",
    "import-module-as": "import pkg.config as c\nc.USE = False\n",
    "dotted": "import pkg.config\npkg.config.USE = False\n",
    "in-a-function": "from pkg import config\n\n\ndef main():\n    config.USE = False\n",
}

#: Where the package lives inside the project folder ``pkg``.
LAYOUTS = {"src": "pkg/src/pkg", "flat": "pkg/pkg"}


def project(root: Path, layout: str, beside: str, write_text: str, marker: Path | None = None) -> Path:
    package = LAYOUTS[layout]
    files = {
        f"{package}/__init__.py": "",
        f"{package}/config.py": "USE = True\n",
        f"{package}/kernels.py": KERNELS,
        f"pkg/{beside}": write_text,
    }
    write(root, files | ({"pkg/pyproject.toml": ""} if marker is None else {}))
    return root


def findings(root: Path, *options: str) -> list[object]:
    status, found = run("--isolated", "--no-cache", *options, str(root / "pkg"))
    assert status in (0, 1)
    return found


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("beside", ["scripts/train.py", "tests/test_kernels.py", "examples/demo.py"])
@pytest.mark.parametrize("change", WRITES.values(), ids=WRITES.keys())
def test_a_write_beside_the_package_is_evidence(tmp_path: Path, layout: str, beside: str, change: str) -> None:
    root = project(tmp_path, layout, beside, change)
    assert_marked(root, findings(root), f"{LAYOUTS[layout]}/kernels.py")


@pytest.mark.parametrize("beside", ["scripts/train.py", "tests/test_kernels.py"])
def test_without_a_project_marker(tmp_path: Path, beside: str) -> None:
    root = project(tmp_path, "src", beside, WRITES["from-package-import-module"], marker=tmp_path)
    assert_marked(root, findings(root), "pkg/src/pkg/kernels.py")


def test_tests_that_are_a_package(tmp_path: Path) -> None:
    root = project(tmp_path, "src", "tests/test_kernels.py", WRITES["from-package-import-module"])
    write(root, {"pkg/tests/__init__.py": ""})
    assert_marked(root, findings(root), "pkg/src/pkg/kernels.py")


def test_a_script_instance_is_known_as_a_module(tmp_path: Path) -> None:
    """benchmarks/own_corpus/tinylm: ``model = TinyLM()`` from ``from pkg.model import TinyLM``
    is an nn.Module instance, and its registration AIG402, in both tiers."""
    write(
        tmp_path,
        {
            "pkg/pyproject.toml": "",
            "pkg/src/pkg/__init__.py": "from .model import TinyLM\n",
            "pkg/src/pkg/model.py": """
                import torch.nn as nn


                class TinyLM(nn.Module):
                    def forward(self, x):
                        return x
            """,
            "pkg/scripts/export.py": """
                import torch
                from pkg import TinyLM
                from pkg.model import TinyLM as Model

                torch.compiler.allow_in_graph(TinyLM())  # AIG402
                model = Model()
                torch.compiler.allow_in_graph(model)  # AIG402
            """,
        },
    )
    assert_marked(tmp_path, findings(tmp_path), "pkg/scripts/export.py")
    exhaustive = check_paths([tmp_path / "pkg"], isolated=True, jobs=1, exhaustive=True, installed_packages=False)
    assert_marked(tmp_path, exhaustive.findings, "pkg/scripts/export.py")


def test_normal_and_exhaustive_runs_agree(tmp_path: Path) -> None:
    root = project(tmp_path, "src", "scripts/train.py", WRITES["import-module-as"])
    exhaustive = check_paths([root / "pkg"], isolated=True, jobs=1, exhaustive=True, installed_packages=False)
    assert_marked(root, exhaustive.findings, "pkg/src/pkg/kernels.py")


def test_a_namespace_package_still_resolves_as_one(tmp_path: Path) -> None:
    """``ns/`` without ``__init__.py`` and no package ``ns`` on the roots: its modules
    import each other through it."""
    write(
        tmp_path,
        {
            "proj/pyproject.toml": "",
            "proj/ns/weights.py": "import torch\n\nW = torch.ones(3)\n",
            "proj/ns/ops.py": """
                import torch
                from ns import weights


                @torch.compiler.allow_in_graph
                def f(x):
                    return x * weights.W  # AIG301
            """,
        },
    )
    status, found = run("--isolated", "--no-cache", str(tmp_path / "proj"))
    assert_marked(tmp_path, found, "proj/ns/ops.py")
