"""A type alias keeps its verdict however the annotation reaches it (issue 22, class 11):
defined in this module or another, imported by name, or read as an attribute of the
imported module in every import spelling."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import check, write

TYPES = """\
from typing import Callable, Optional, Union

import torch

Act = Optional[Callable[[torch.Tensor], torch.Tensor]]
MaybeModule = Union[torch.nn.Module, None]
Scale = Optional[float]
"""

#: An import of pkg/types.py from pkg/ops.py, and how its annotations then name an alias.
SPELLINGS = {
    "from-import-name": ("from pkg.types import Act, MaybeModule, Scale", "{}"),
    "from-import-module": ("from pkg import types", "types.{}"),
    "import-as": ("import pkg.types as t", "t.{}"),
    "relative-module": ("from . import types", "types.{}"),
    "relative-module-as": ("from . import types as aliases", "aliases.{}"),
    "import-dotted": ("import pkg.types", "pkg.types.{}"),
    "string": ("from pkg import types", "'types.{}'"),
}


@pytest.mark.parametrize(("imports", "spelled"), SPELLINGS.values(), ids=list(SPELLINGS))
def test_an_alias_of_another_module_is_judged_as_spelled_out(tmp_path: Path, imports: str, spelled: str) -> None:
    ops = f"""\
import torch

{imports}


@torch.compiler.allow_in_graph
def gated(x: torch.Tensor, act: {spelled.format("Act")}):  # AIG101
    return x


@torch.compiler.allow_in_graph
def normed(x: torch.Tensor, norm: {spelled.format("MaybeModule")}):  # AIG101
    return x


@torch.compiler.allow_in_graph
def scaled(x: torch.Tensor, scale: {spelled.format("Scale")}):
    return x
"""
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/types.py": TYPES, "pkg/ops.py": ops})
    findings = check(root, "pkg/ops.py")
    assert sorted(finding.message.split(":")[0] for finding in findings) == ["gated", "normed"]
