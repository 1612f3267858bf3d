"""Lists and tuples of another module's functions (issue 22, class 10): allow_in_graph
registers each element (evidence S§5), so ``allow_in_graph([kernels.f, kernels.g])`` has
``f`` and ``g`` judged in kernels.py exactly as ``@allow_in_graph`` on them would be,
under every import spelling, whether the project, the registering file or the defining
file alone is checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import assert_marked, run, write

KERNELS = """
import torch

W = torch.ones(4)

def scaled(x):
    return x * W  # AIG301

def as_dict(x):
    return {"y": x}  # AIG201

def unregistered(x):
    return x * W
"""

#: An import of kernels.py, and the list or tuple of its functions that it registers.
SPELLINGS = {
    "list-of-module-attributes": ("from . import kernels", "[kernels.scaled, kernels.as_dict]"),
    "tuple-of-module-attributes": ("from . import kernels", "(kernels.scaled, kernels.as_dict)"),
    "list-of-imported-names": ("from .kernels import as_dict, scaled", "[scaled, as_dict]"),
    "tuple-of-imported-names": ("from .kernels import as_dict, scaled", "(scaled, as_dict)"),
    "keyword-list": ("from .kernels import as_dict, scaled", "fn=[scaled, as_dict]"),
    "package-attributes": ("import pkg.kernels", "[pkg.kernels.scaled, pkg.kernels.as_dict]"),
    "module-alias": ("import pkg.kernels as k", "[k.scaled, k.as_dict]"),
    "multi-line-list": ("from . import kernels", "[\n    kernels.scaled,\n    kernels.as_dict,\n]"),
}


@pytest.fixture(params=SPELLINGS.values(), ids=list(SPELLINGS))
def project(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    imported, registered = request.param
    register = f"import torch\n{imported}\n\ntorch.compiler.allow_in_graph({registered})\n"
    write(tmp_path, {"pkg/__init__.py": "", "pkg/kernels.py": KERNELS})
    (tmp_path / "pkg" / "register.py").write_text(register, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_each_element_is_judged_in_its_module(project: Path) -> None:
    status, found = run("--isolated", "-q", "--no-cache", "pkg")
    assert status == 1
    assert_marked(project, found)
    assert all("(registered at pkg/register.py:4)" in finding.message for finding in found)


def test_checking_only_the_registering_file_reports_in_the_defining_one(project: Path) -> None:
    assert_marked(project, run("--isolated", "-q", "--no-cache", "pkg/register.py")[1])


def test_checking_only_the_defining_file_finds_the_registration(project: Path) -> None:
    assert_marked(project, run("--isolated", "-q", "--no-cache", "pkg/kernels.py")[1])
