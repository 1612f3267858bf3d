"""What other modules of the project define is judged as if it were written here: type
aliases in annotations, and the Dynamo markers applied to a registered def (AIG406)."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import assert_marked, check, run, write

TYPES = """
    from typing import Callable, Optional

    import torch

    Activation = Callable[[torch.Tensor], torch.Tensor]
    MaybeActivation = Optional[Activation]
"""


def test_an_imported_type_alias_is_what_its_module_binds(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/types.py": TYPES,
            "pkg/ops.py": """
                import torch
                from .types import MaybeActivation

                @torch.compiler.allow_in_graph
                def act(x: torch.Tensor, fn: MaybeActivation = None):  # AIG101
                    return x
            """,
        },
    )
    (finding,) = check(tmp_path, "pkg/ops.py")
    assert "Callable" in finding.message


def test_aliases_that_import_each_other_end(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from typing import Optional\nfrom .b import B\n\nA = Optional[B]\n",
            "pkg/b.py": "from typing import List\nfrom .a import A\n\nB = List[A]\n",
            "pkg/ops.py": """
                import torch
                from .a import A

                @torch.compiler.allow_in_graph
                def f(x: torch.Tensor, y: A = None):
                    return x
            """,
        },
    )
    assert check(tmp_path, "pkg/ops.py") == []


KERNELS = """
    import torch
    from torch._dynamo import nonstrict_trace

    W = torch.ones(4)

    @nonstrict_trace
    def traced(x):
        return x * W

    def fused(x):
        return x * 2
"""


def test_markers_on_an_imported_def_are_reported_where_it_is_registered(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNELS,
            "pkg/register.py": """
                import torch
                from .kernels import fused, traced

                torch.compiler.allow_in_graph(fused)  # AIG406
                torch._dynamo.disallow_in_graph(fused)
                torch.compiler.allow_in_graph(traced)  # AIG406
            """,
        },
    )
    disallowed, traced = check(tmp_path, "pkg/register.py")
    assert "fused is also marked disallow_in_graph (line 5)" in disallowed.message
    assert "traced is also marked nonstrict_trace (kernels.py:6)" in traced.message
    # nonstrict_trace wins in any order: the body of traced is not judged as registered (no AIG301 for W).
    assert check(tmp_path, "pkg/kernels.py") == []


def test_a_marker_call_around_an_imported_def(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": "import torch\n\nW = torch.ones(4)\n\ndef scaled(x):\n    return x * W\n",
            "pkg/register.py": """
                import torch
                from torch._dynamo import nonstrict_trace
                from .kernels import scaled

                fast = torch.compiler.allow_in_graph(nonstrict_trace(scaled))  # AIG406 AIG406
                torch._dynamo.nonstrict_trace(scaled)
            """,
        },
    )
    inner, again = check(tmp_path, "pkg/register.py")
    assert "scaled is also marked nonstrict_trace (line 5)" in inner.message
    assert "scaled is also marked nonstrict_trace (line 6)" in again.message
    assert check(tmp_path, "pkg/kernels.py") == []  # nonstrict_trace wins: no AIG301 in scaled


def test_torch_classes_keep_their_contract_verdict_in_torch_own_tree(tmp_path: Path) -> None:
    # torch defines SymInt as a class of its own; the contract, not that class body, says what it is.
    write(
        tmp_path,
        {
            "torch/__init__.py": "class SymInt:\n    pass\n",
            "torch/types.py": "from torch import SymInt\n\nIntLikeType = int | SymInt\n",
            "torch/_dynamo/__init__.py": "",
            "torch/_dynamo/prologue.py": """
                from typing import Sequence

                import torch
                from torch.types import IntLikeType

                @torch.compiler.allow_in_graph
                def prologue(x: torch.Tensor, sizes: Sequence[IntLikeType]):
                    return x
            """,
        },
    )
    assert check(tmp_path, "torch/_dynamo/prologue.py") == []


OPS = """
    import torch

    @torch.compiler.allow_in_graph
    def apply_act(x, act):
        return act(x)

    def eager(x, act):
        return act(x)
"""


def test_calls_of_a_registered_function_in_files_that_only_import_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/ops.py": OPS,
            # model.py never names the API: only its calls of apply_act are judged.
            "pkg/model.py": """
                from .ops import (
                    apply_act,
                    eager,
                )

                def forward(x):
                    eager(x, lambda t: t.relu())
                    return apply_act(x, lambda t: t.relu())  # AIG104
            """,
            "pkg/other.py": "from .ops import eager\n\ndef forward(x):\n    return eager(x, lambda t: t)\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    status, found = run("--isolated", "-q", "--no-cache", "pkg")
    assert status == 1
    assert_marked(tmp_path, found)
    # Named alone, the importing file is checked the same way.
    assert_marked(tmp_path, run("--isolated", "-q", "--no-cache", "pkg/model.py")[1], "pkg/model.py")
