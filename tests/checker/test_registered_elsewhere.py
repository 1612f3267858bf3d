"""A def or class defined in one module and registered in another (issue 4).

The findings point at the definition's lines and name the registering line.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from checker import cli

KERNELS = """
import torch

W = torch.ones(4)

def scaled(x):
    return x * W

def as_dict(x):
    return {"y": x}

class Block(torch.nn.Module):
    pass
"""
REGISTER = """
import torch
from .kernels import scaled, as_dict, Block

torch.compiler.allow_in_graph(scaled)
torch.compiler.allow_in_graph(as_dict)
torch.compiler.allow_in_graph(Block)
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    status = cli.main(["--isolated", "-q", "--output-format", "text", *argv])
    lines = [line for line in capsys.readouterr().out.splitlines() if ": AIG" in line]
    return status, lines


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/kernels.py": KERNELS, "pkg/register.py": REGISTER})
    monkeypatch.chdir(tmp_path)
    return tmp_path


def codes(lines: list[str]) -> list[str]:
    return [line.split(" [")[0] for line in lines]


EXPECTED = ["pkg/kernels.py:6:16: AIG301", "pkg/kernels.py:9:12: AIG201", "pkg/kernels.py:11:1: AIG402"]


def test_findings_point_at_the_definitions(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = run(capsys, "--no-cache", "pkg")
    assert status == 1
    assert codes(lines) == EXPECTED  # and none at the registering lines of register.py
    assert "scaled (registered at pkg/register.py:4): reads tensor 'W' from the module scope" in lines[0]
    assert "as_dict (registered at pkg/register.py:5): returns a dict" in lines[1]
    assert "torch.compiler.allow_in_graph at pkg/register.py:6: registers the nn.Module subclass Block" in lines[2]


def test_checking_only_the_registering_file_reports_in_the_defining_one(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert codes(run(capsys, "--no-cache", "pkg/register.py")[1]) == EXPECTED


@pytest.mark.parametrize(
    ("import_line", "spelling"),
    [
        ("from . import kernels", "kernels.scaled"),
        ("from pkg import scaled", "scaled"),  # re-exported by pkg/__init__.py
        ("from .api import scaled", "scaled"),  # re-exported by a module that re-exports it again
    ],
    ids=["module-attribute", "package-re-export", "two-re-exports"],
)
def test_other_spellings_of_the_import(
    project: Path, capsys: pytest.CaptureFixture[str], import_line: str, spelling: str
) -> None:
    write(
        project,
        {
            "pkg/__init__.py": "from .kernels import scaled\n",
            "pkg/api.py": "from pkg import scaled\n",
            "pkg/register.py": f"import torch\n{import_line}\n\ntorch.compiler.allow_in_graph({spelling})\n",
        },
    )
    assert codes(run(capsys, "--no-cache", "pkg")[1]) == ["pkg/kernels.py:6:16: AIG301"]


def test_suppressions_and_exclusions_of_the_defining_file_apply(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kernels = project / "pkg/kernels.py"
    kernels.write_text(kernels.read_text().replace("return x * W", "return x * W  # aigcheck: noqa: AIG301"))
    assert codes(run(capsys, "--no-cache", "pkg")[1]) == EXPECTED[1:]
    (project / "pyproject.toml").write_text('[tool.aigcheck]\nexclude = ["pkg/kernels.py"]\n')
    status = cli.main(["-q", "--no-cache", "pkg/register.py"])
    assert status == 0 and "AIG" not in capsys.readouterr().out


def test_the_cache_follows_the_registering_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert codes(run(capsys, "--cache-dir", "cache", "pkg")[1]) == EXPECTED
    assert codes(run(capsys, "--cache-dir", "cache", "pkg")[1]) == EXPECTED  # warm
    register = project / "pkg/register.py"
    register.write_text(register.read_text().replace("torch.compiler.allow_in_graph(scaled)\n", ""))
    assert codes(run(capsys, "--cache-dir", "cache", "pkg")[1]) == EXPECTED[1:]


def test_a_rebound_name_or_a_missing_definition_is_not_judged(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        project,
        {
            "pkg/kernels.py": KERNELS + "\nscaled = torch.compile(scaled)\n",
            "pkg/register.py": "import torch\nfrom .kernels import scaled, missing\n\n"
            "torch.compiler.allow_in_graph(scaled)\ntorch.compiler.allow_in_graph(missing)\n",
        },
    )
    status, lines = run(capsys, "--no-cache", "pkg")
    assert (status, lines) == (0, [])


def test_modules_that_import_each_other(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernels = project / "pkg/kernels.py"
    kernels.write_text("from .register import scaled as again\n" + kernels.read_text())
    assert len(run(capsys, "--no-cache", "pkg")[1]) == 3


def test_torch_functions_whose_bool_result_dynamo_folds_are_not_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # torch registers these in torch/nn/attention/bias.py; Dynamo makes their bool a constant.
    write(
        tmp_path,
        {
            "torch/__init__.py": "",
            "torch/backends/__init__.py": "",
            "torch/backends/cuda/__init__.py": "def is_flash_attention_available() -> bool:\n    return True\n\n"
            "def is_something_else() -> bool:\n    return True\n",
            "torch/nn/__init__.py": "",
            "torch/nn/attention/__init__.py": "",
            "torch/nn/attention/bias.py": "import torch\n"
            "from torch.backends.cuda import is_flash_attention_available, is_something_else\n\n"
            "torch._dynamo.allow_in_graph(is_flash_attention_available)\n"
            "torch._dynamo.allow_in_graph(is_something_else)\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    _, lines = run(capsys, "--no-cache", "--select", "AIG2", "torch")
    assert codes(lines) == [
        "torch/backends/cuda/__init__.py:4:28: AIG201",
        "torch/backends/cuda/__init__.py:5:12: AIG201",
    ]
