"""A def or class defined in one module and registered in another (issue 4).

The findings point at the definition's lines and name the registering line.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from projects import assert_marked, run, write

from checker.passes.engine import LinkedReport
from checker.passes.schedule import Job
from checker.passes.session import _EarlyHandoffs
from checker.spec.findings import Finding

KERNELS = """
import torch

W = torch.ones(4)

def scaled(x):
    return x * W  # AIG301

def as_dict(x):
    return {"y": x}  # AIG201

class Block(torch.nn.Module):
    pass
"""
REGISTER = """
import torch
from .kernels import scaled, as_dict, Block

torch.compiler.allow_in_graph(scaled)
torch.compiler.allow_in_graph(as_dict)
torch.compiler.allow_in_graph(Block)  # AIG402
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/kernels.py": KERNELS, "pkg/register.py": REGISTER})
    monkeypatch.chdir(tmp_path)
    return tmp_path


def aigcheck(*argv: str) -> tuple[int, list[Finding]]:
    """A run that reads no configuration."""
    return run("--isolated", "-q", *argv)


def test_findings_point_at_the_definitions(project: Path) -> None:
    status, found = aigcheck("--no-cache", "pkg")
    assert status == 1
    # Functions are judged at their definitions; registering a module class is judged where it is registered.
    assert_marked(project, found)
    scaled, as_dict, block = found
    assert (scaled.column, as_dict.column, block.column) == (16, 12, 31)  # 'W', the dict, the registered class
    assert "scaled (registered at pkg/register.py:4): reads tensor 'W' from the module scope" in scaled.message
    assert "as_dict (registered at pkg/register.py:5): returns a dict" in as_dict.message
    assert block.path == "pkg/register.py"
    assert "torch.compiler.allow_in_graph: registers the nn.Module subclass Block" in block.message


def test_checking_only_the_registering_file_reports_in_the_defining_one(project: Path) -> None:
    assert_marked(project, aigcheck("--no-cache", "pkg/register.py")[1])


@pytest.mark.parametrize(
    ("import_line", "spelling"),
    [
        ("from . import kernels", "kernels.scaled"),
        ("from pkg import scaled", "scaled"),  # re-exported by pkg/__init__.py
        ("from .api import scaled", "scaled"),  # re-exported by a module that re-exports it again
    ],
    ids=["module-attribute", "package-re-export", "two-re-exports"],
)
def test_other_spellings_of_the_import(project: Path, import_line: str, spelling: str) -> None:
    write(
        project,
        {
            "pkg/__init__.py": "from .kernels import scaled\n",
            "pkg/api.py": "from pkg import scaled\n",
            "pkg/register.py": f"import torch\n{import_line}\n\ntorch.compiler.allow_in_graph({spelling})\n",
        },
    )
    # Only ``scaled`` is registered: the markers of as_dict and Block do not apply.
    assert_marked(project, aigcheck("--no-cache", "pkg")[1], without={"AIG201", "AIG402"})


def test_suppressions_and_exclusions_of_the_defining_file_apply(project: Path) -> None:
    kernels = project / "pkg/kernels.py"
    kernels.write_text(kernels.read_text().replace("# AIG301", "# aigcheck: noqa: AIG301"))
    # The file's AIG301 is suppressed (the marker parser reads the suppression as a marker too).
    assert_marked(project, aigcheck("--no-cache", "pkg")[1], without={"AIG301"})
    (project / "pyproject.toml").write_text('[tool.aigcheck]\nexclude = ["pkg/kernels.py"]\n')
    # What is wrong in kernels.py is no longer reported; the registration of Block in register.py still is.
    status, found = run("-q", "--no-cache", "pkg/register.py")
    assert (status, [(finding.path, finding.code) for finding in found]) == (1, [("pkg/register.py", "AIG402")])


def test_the_cache_follows_the_registering_file(project: Path) -> None:
    assert_marked(project, aigcheck("--cache-dir", "cache", "pkg")[1])
    assert_marked(project, aigcheck("--cache-dir", "cache", "pkg")[1])  # warm
    register = project / "pkg/register.py"
    register.write_text(register.read_text().replace("torch.compiler.allow_in_graph(scaled)\n", ""))
    # ``scaled`` is no longer registered: its AIG301 goes, the others stay.
    assert_marked(project, aigcheck("--cache-dir", "cache", "pkg")[1], without={"AIG301"})


def test_a_rebound_name_or_a_missing_definition_is_not_judged(project: Path) -> None:
    write(
        project,
        {
            # KERNELS without its markers: nothing in it is registered as it is defined.
            "pkg/kernels.py": """
                import torch

                W = torch.ones(4)

                def scaled(x):
                    return x * W

                def as_dict(x):
                    return {"y": x}

                class Block(torch.nn.Module):
                    pass

                scaled = torch.compile(scaled)
            """,
            "pkg/register.py": "import torch\nfrom .kernels import scaled, missing\n\n"
            "torch.compiler.allow_in_graph(scaled)\ntorch.compiler.allow_in_graph(missing)\n",
        },
    )
    assert aigcheck("--no-cache", "pkg") == (0, [])


def test_registrations_split_over_files_begun_early_are_all_judged(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hand-off to kernels.py is begun when the first registering file's outcome is in,
    with its registration alone; the second file adds one, so the early check is not the
    job wanted and kernels.py is judged with both, as when one file registers both."""
    (project / "pkg/register.py").unlink()
    write(
        project,
        {
            "pkg/a_register.py": "import torch\nfrom .kernels import scaled\ntorch.compiler.allow_in_graph(scaled)\n",
            "pkg/z_register.py": "import torch\nfrom .kernels import as_dict\ntorch.compiler.allow_in_graph(as_dict)\n",
        },
    )
    taken: list[int] = []
    real_taken = _EarlyHandoffs.taken

    def counting(self: _EarlyHandoffs, jobs: Sequence[Job]) -> dict[Job, LinkedReport]:
        found = real_taken(self, jobs)
        taken.append(len(found))
        return found

    monkeypatch.setattr(_EarlyHandoffs, "taken", counting)
    status, found = aigcheck("--no-cache", "pkg")
    assert status == 1
    assert sorted((finding.path, finding.code) for finding in found) == [
        ("pkg/kernels.py", "AIG201"),
        ("pkg/kernels.py", "AIG301"),
    ]
    assert taken == [1]  # the second early check, with both registrations, was the one wanted


def test_modules_that_import_each_other(project: Path) -> None:
    kernels = project / "pkg/kernels.py"
    kernels.write_text("from .register import scaled as again\n" + kernels.read_text())
    assert_marked(project, aigcheck("--no-cache", "pkg")[1])


def test_torch_functions_whose_bool_result_dynamo_folds_are_not_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # torch registers these in torch/nn/attention/bias.py; Dynamo makes their bool a constant.
    write(
        tmp_path,
        {
            "torch/__init__.py": "",
            "torch/backends/__init__.py": "",
            "torch/backends/cuda/__init__.py": """
                def is_flash_attention_available() -> bool:
                    return True

                def is_something_else() -> bool:  # AIG201
                    return True  # AIG201
            """,
            "torch/nn/__init__.py": "",
            "torch/nn/attention/__init__.py": "",
            "torch/nn/attention/bias.py": "import torch\n"
            "from torch.backends.cuda import is_flash_attention_available, is_something_else\n\n"
            "torch._dynamo.allow_in_graph(is_flash_attention_available)\n"
            "torch._dynamo.allow_in_graph(is_something_else)\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    _, found = aigcheck("--no-cache", "--select", "AIG2", "torch")
    assert_marked(tmp_path, found)
    assert [finding.column for finding in found] == [28, 12]  # the annotation, the returned value


# -- a def re-exported by the package and imported back by its old module ----------------

IMPL = """
import torch

W = torch.ones(4)

def scaled(x):
    return x * W  # AIG301
"""
#: ``__init__.py`` binds ``scaled`` twice: from ``_impl``, then from ``ops`` (which took it
#: from the package): the second import is the same object, bound again.
INIT = """
from ._impl import scaled
from .ops import scaled
"""


@pytest.mark.parametrize(
    "ops",
    [
        "import torch\nfrom . import scaled\n\ntorch.compiler.allow_in_graph(scaled)\n",
        "import torch\nfrom . import scaled\n\nscaled = torch.compiler.allow_in_graph(scaled)\n",
        "import torch\nfrom pkg import scaled\n\nscaled = torch.compiler.allow_in_graph(scaled)\n",
    ],
    ids=["call", "rebinding", "absolute-rebinding"],
)
@pytest.mark.parametrize("checked", ["pkg", "pkg/ops.py"])
def test_a_def_bound_twice_by_the_package_is_followed_to_its_def(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ops: str, checked: str
) -> None:
    write(tmp_path, {"pkg/__init__.py": INIT, "pkg/_impl.py": IMPL, "pkg/ops.py": ops})
    monkeypatch.chdir(tmp_path)
    _, found = aigcheck("--no-cache", checked)
    assert_marked(tmp_path, found)
