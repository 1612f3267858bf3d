"""Captured-name analysis follows Python's scoping rules exactly."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from checker.facts.captures.capture import Capture, Holder
from checker.facts.module import ModuleFacts


def captured(source: str) -> list[tuple[str, str]]:
    """(name, kind) of every capture of every registered body."""
    facts = ModuleFacts(cst.parse_module(textwrap.dedent(source)), "t.py")
    return [(shown(capture), capture.inferred.kind.name) for capture in facts.captures()]


def shown(capture: Capture) -> str:
    """The captured name: ``W``, ``self.w``, ``default of 'w'`` (a parameter's default value)."""
    return f"default of '{capture.name}'" if capture.source.holder is Holder.DEFAULT else capture.name


CASES = {
    "global-tensor": ("W = torch.ones(2)\n@aig\ndef f(x): return x * W", [("W", "TENSOR")]),
    "parameter-shadows-global": ("W = torch.ones(2)\n@aig\ndef f(x, W): return x * W", []),
    "local-shadows-global-even-before-assignment": (
        "W = torch.ones(2)\n@aig\ndef f(x):\n    y = x\n    W = x\n    return y * W",
        [],
    ),
    "global-declaration": (
        "W = torch.ones(2)\n@aig\ndef f(x):\n    global W\n    W = x\n    return W",
        [("W", "UNKNOWN")],
    ),
    "comprehension-variable-is-local": ("w = torch.ones(2)\n@aig\ndef f(xs): return [w for w in xs]", []),
    "comprehension-reads-global": ("W = torch.ones(2)\n@aig\ndef f(xs): return [x * W for x in xs]", [("W", "TENSOR")]),
    "class-body-does-not-enclose-methods": (
        "class C:\n    W = torch.ones(2)\n    @staticmethod\n    @aig\n    def f(x): return x * W",
        [],
    ),
    "class-body-name-resolves-to-global": (
        "W = torch.ones(2)\nclass C:\n    W = 3\n    @staticmethod\n    @aig\n    def f(x): return x * W",
        [("W", "TENSOR")],
    ),
    "bound-later-in-module": ("@aig\ndef f(x): return x * W\nW = nn.Parameter(torch.ones(2))", [("W", "TENSOR")]),
    "closure-variable": (
        "def outer():\n    W = torch.zeros(2)\n    @aig\n    def f(x): return x + W\n    return f",
        [("W", "TENSOR")],
    ),
    "nonlocal": (
        "def outer():\n    n = 0\n    @aig\n    def f(x):\n        nonlocal n\n        n += 1\n        return x * n\n"
        "    return f",
        [("n", "IMMUTABLE"), ("n", "IMMUTABLE")],
    ),
    "nested-function-inside-body-reads-global": (
        "W = torch.ones(2)\n@aig\ndef f(x):\n    def g(y): return y * W\n    return g(x)",
        [("W", "TENSOR")],
    ),
    "nested-function-reads-body-local": (
        "@aig\ndef f(x):\n    W = torch.ones(2)\n    def g(y): return y * W\n    return g(x)",
        [],
    ),
    "walrus-in-comprehension-binds-in-function": (
        "@aig\ndef f(xs):\n    [(last := x) for x in xs]\n    return last",
        [],
    ),
    "builtins-are-not-captures": ("@aig\ndef f(x): return len(x) + abs(x)", []),
    "imports-and-functions-are-not-state": (
        "import math\ndef helper(x): return x\n@aig\ndef f(x): return helper(x) * math.pi * torch.sin(x)",
        [],
    ),
    "tensor-arithmetic-and-methods": (
        "A = torch.ones(2)\nB = A * 2\nC = B.clone().t()\n@aig\ndef f(x): return x * C",
        [("C", "TENSOR")],
    ),
    "annotation-declares-tensor": ("W: torch.Tensor = load()\n@aig\ndef f(x): return x * W", [("W", "TENSOR")]),
    "module-constructor": ("lin = nn.Linear(2, 2)\n@aig\ndef f(x): return lin(x)", [("lin", "MODULE")]),
    "dict-of-tensors": ("D = {'w': torch.ones(2)}\n@aig\ndef f(x): return x * D['w']", [("D", "TENSOR_CONTAINER")]),
    "unknown-is-reported-as-unknown": ("W = load()\n@aig\ndef f(x): return x * W", [("W", "UNKNOWN")]),
    "default-argument": ("W = torch.ones(2)\n@aig\ndef f(x, w=W): return x * w", [("default of 'w'", "TENSOR")]),
}

PRELUDE = "import torch\nfrom torch import nn\nfrom torch.compiler import allow_in_graph as aig\n"


@pytest.mark.parametrize(("body", "expected"), CASES.values(), ids=CASES.keys())
def test_captures(body: str, expected: list[tuple[str, str]]) -> None:
    assert captured(PRELUDE + body) == expected


def test_self_attributes_of_saved_bound_method() -> None:
    found = captured(
        PRELUDE
        + textwrap.dedent(
            """
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.w = nn.Parameter(torch.ones(2))
                    self.k = 2.0
                    self._f = aig(self.run)
                def helper(self, x):
                    return x
                def run(self, x):
                    return self.helper(x) * self.w * self.k * self.training
            """
        )
    )
    assert found == [("self.w", "TENSOR"), ("self.k", "IMMUTABLE"), ("self.training", "UNKNOWN")]
