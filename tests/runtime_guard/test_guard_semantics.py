"""A guarded function computes exactly what the unguarded one computes, on every backend.

Forward results and gradients are compared bit for bit with eager (uncompiled) calls of
the plain function, on eager, aot_eager and inductor, with static and dynamic shapes,
under ``fullgraph=True``; plus the argument checks of the fallback path (AIG101/AIG102).
"""

from __future__ import annotations

import pytest
import torch
from guard_violations import codes

import runtime_guard as rg


def fused(x, w, *, bias=None, scale: float = 1.0):
    y = torch.tanh(x * w) * scale
    if bias is not None:
        y = y + bias
    return y, y.sum(dim=-1)


def model(fn):
    def f(x, w, b):
        y, s = fn(x.sin(), w, bias=b, scale=0.5)
        return y.cos() + s.unsqueeze(-1)

    return f


def run(f, compile_options):
    torch.manual_seed(0)
    inputs = [torch.randn(3, 5, requires_grad=True) for _ in range(3)]
    g = torch.compile(f, **compile_options) if compile_options else f
    outs = [g(*inputs)]
    outs[0].sum().backward()
    larger = [torch.randn(4, 5) for _ in range(3)]  # a second shape: recompiles, or dynamic
    outs.append(g(*larger))
    return outs, [t.grad for t in inputs]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_guarded_equals_unguarded(backend: str, dynamic: bool) -> None:
    expected, expected_grads = run(model(fused), None)
    with rg.strict("raise"):
        guarded = rg.allow_in_graph(fused)
    assert guarded is not fused and guarded.__wrapped__ is fused and guarded.__name__ == "fused"
    got, grads = run(model(guarded), {"backend": backend, "dynamic": dynamic, "fullgraph": True})
    for a, b in zip(got, expected, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-6 if backend == "inductor" else 0)
    for a, b in zip(grads, expected_grads, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-6 if backend == "inductor" else 0)
    assert codes() == []
    entry = rg.registry.lookup(guarded)
    assert entry is not None and entry.calls_checked >= 2


def test_off_registers_the_function_itself() -> None:
    def plain(x):
        return x + 1

    assert rg.allow_in_graph(plain) is plain
    assert rg.registry.lookup(plain) is None


def test_module_argument_aig101_through_the_fallback() -> None:
    with rg.strict("warn"):

        @rg.allow_in_graph
        def apply(x, layer):
            return layer(x)

    layer = torch.nn.Identity()
    fn = torch.compile(lambda x: apply(x + 0, layer) * 1, backend="inductor")
    with pytest.warns(rg.ContractWarning, match="AIG101 unproxyable-parameter: argument 'layer' is a torch.nn"):
        assert torch.equal(fn(torch.ones(3)), torch.ones(3))
    assert codes() == ["AIG101"]


def test_argument_paths_in_eager_calls() -> None:
    with rg.strict("raise"):

        @rg.allow_in_graph
        def total(xs):
            return xs[0]

    with pytest.raises(rg.ContractViolation, match=r"item 1 of argument 'xs' is a torch.nn.modules.linear.Identity"):
        total([torch.ones(1), torch.nn.Identity()])
    with pytest.raises(rg.ContractViolation, match=r"value 'k' of argument 'xs' is a torch.nn") as info:
        total({"k": torch.nn.Identity()})
    assert info.value.code == "AIG101"
