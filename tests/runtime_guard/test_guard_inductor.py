"""The silent failure classes of the evidence, reported by the guard under the real Inductor path.

Each case compiles a tiny function with ``torch.compile(backend="inductor")`` on CPU
(``evidence/dynamo/FINDINGS.md`` sections S1, S3 and S5 describe what happens
without the guard). Strict mode is ``warn`` unless the case shows ``raise``: in warn mode
the compiled code still runs, so the case can show the silent wrong result next to the
violation the guard recorded.
"""

from __future__ import annotations

import functools

import pytest
import torch
import torch._dynamo
from guard_violations import codes

import runtime_guard as rg

W = torch.arange(4.0)
K = 2.0
late_w = None  # a test binds a tensor here only after the function reading it is registered


def set_k(value: float) -> None:
    global K
    K = value


def compiled(fn, backend: str = "inductor", **options):
    return torch.compile(lambda x: fn(x + 0) * 1, backend=backend, **options)


def test_captured_global_tensor_aig301_raise() -> None:
    with rg.strict("raise"):

        @rg.allow_in_graph
        def scale(x):
            return x * late_w

    globals()["late_w"] = torch.ones(4)  # bound after registration: only the trace-time mode sees it
    try:
        with pytest.raises(
            rg.ContractViolation, match="AIG301 captured-tensor: uses the captured tensor 'late_w'"
        ) as info:
            compiled(scale)(torch.ones(4))
    finally:
        globals()["late_w"] = None
    assert info.value.code == "AIG301"  # raised as itself, not wrapped by Dynamo (FINDINGS D18)
    assert codes() == ["AIG301"]
    assert "Tensor.mul" in rg.registry.violations()[0].detail


def test_captured_closure_tensor_aig301_at_registration() -> None:
    w = torch.ones(4)

    def scale(x):
        return x * w

    with rg.strict("raise"), pytest.raises(rg.ContractViolation) as info:
        rg.allow_in_graph(scale)
    assert info.value.code == "AIG301"
    assert "reads tensor 'w' from a closure cell" in info.value.detail
    assert info.value.site.endswith(f"{__file__}:{scale.__code__.co_firstlineno + 4}")


def test_laundered_capture_aig303_is_reported_and_stale_without_it() -> None:
    source = torch.arange(4.0)
    with rg.strict("warn"), pytest.warns(rg.ContractWarning):

        @rg.allow_in_graph
        def scale(x):
            return x * torch.tensor(source.tolist())

    fn = compiled(scale)
    x = torch.ones(4)
    with pytest.warns(rg.ContractWarning, match="AIG303 laundered-capture: converts the captured tensor 'source'"):
        assert torch.equal(fn(x), x * source)
    source.add_(1)
    assert not torch.equal(fn(x), x * source)  # the silent failure the guard reported
    assert codes() == ["AIG301", "AIG303"]


def test_captured_python_float_rebound_aig302() -> None:
    with rg.strict("warn"), pytest.warns(rg.ContractWarning, match="AIG302 .*'K'.*'set_k' rebinds"):

        @rg.allow_in_graph
        def scale(x):
            return x * K

    fn = compiled(scale)
    x = torch.ones(4)
    try:
        assert torch.equal(fn(x), x * 2.0)
        set_k(3.0)
        assert torch.equal(fn(x), x * 2.0)  # stale: the float was frozen at compile time
    finally:
        set_k(2.0)
    assert codes() == ["AIG302"]


def test_captured_config_dict_aig302() -> None:
    cfg = {"k": 2.0}
    with rg.strict("warn"), pytest.warns(rg.ContractWarning, match="mutable container 'cfg' from a closure cell"):
        rg.allow_in_graph(lambda x: x * cfg["k"])
    assert codes() == ["AIG302"]


def test_baked_float_return_aig202() -> None:
    with rg.strict("warn"):

        @rg.allow_in_graph
        def ratio(x):
            return x.shape[0] / 8

    fn = torch.compile(lambda x: x * ratio(x + 0), backend="inductor")
    with pytest.warns(rg.ContractWarning, match=r"AIG202 baked-scalar-return: the return value is a float \(0.5\)"):
        assert torch.equal(fn(torch.ones(4)), torch.full((4,), 0.5))
    assert codes() == ["AIG202"]


def test_baked_float_in_tuple_is_stale_under_inductor() -> None:
    with rg.strict("warn"):

        @rg.allow_in_graph
        def size_and_double(x):
            return x * 2, x.shape[0] * 0.5

    fn = torch.compile(lambda x: size_and_double(x + 0)[0] * 1, backend="inductor")
    with pytest.warns(rg.ContractWarning, match="AIG202"):
        fn(torch.ones(4))
    assert codes() == ["AIG202"]


def test_recreated_closure_aig401_reported_and_stale_as_without_the_guard() -> None:
    def make(k: float):
        def scale(x):
            return x * k

        return rg.allow_in_graph(scale)

    with rg.strict("warn"):
        first = make(2.0)
        with pytest.warns(rg.ContractWarning, match="AIG401 recreated-closure: the same def was registered before"):
            second = make(3.0)
    holder = {"g": first}
    fn = torch.compile(lambda x: holder["g"](x + 0) * 1, backend="inductor")
    x = torch.ones(4)
    assert torch.equal(fn(x), x * 2)
    holder["g"] = second
    # The graph keeps calling the first copy (S§1c), with the guard as without it: the
    # guard reports, it does not change what the program computes.
    assert torch.equal(fn(x), x * 2)
    assert codes() == ["AIG401"]


def test_recreated_def_without_captures_is_not_aig401() -> None:
    def make():
        return rg.allow_in_graph(lambda x: x * 2 + 1)

    with rg.strict("raise"):
        make()
        make()
    assert codes() == []


class Scaler:
    def scale(self, x):
        return x * 2


@pytest.mark.parametrize(
    "target, expected",
    [
        pytest.param(lambda: functools.partial(torch.mul, other=2), "functools.partial", id="partial"),
        pytest.param(lambda: Scaler().scale, "bound method", id="bound-method"),
        pytest.param(lambda: torch.nn.Identity(), "nn.Module instance", id="module"),
    ],
)
def test_ignored_registrations_aig402(target, expected) -> None:
    obj = target()
    with (
        rg.strict("warn"),
        pytest.warns(rg.ContractWarning, match=f"AIG402 ineffective-registration: the target is an? {expected}"),
    ):
        registered = rg.allow_in_graph(obj)
    assert registered is obj  # left exactly as torch leaves it
    fn = torch.compile(lambda x: registered(x + 0) * 1, backend="inductor")
    assert torch.equal(fn(torch.ones(4)), obj(torch.ones(4)))
    assert codes() == ["AIG402"]
