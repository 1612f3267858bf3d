"""No false reports: tensors passed in, however deep, and tensors torch transforms make
inside the call are not captures (AIG301), in raise mode, eager and compiled."""

from __future__ import annotations

import dataclasses
import typing

import pytest
import torch
from torch.testing._internal.two_tensor import TwoTensor

import runtime_guard as rg


@dataclasses.dataclass(frozen=True)
class Scales:
    weight: torch.Tensor
    bias: torch.Tensor


class Pair(typing.NamedTuple):
    left: torch.Tensor
    right: torch.Tensor


def through_frozen_dataclass(x, scales):
    return x * scales.weight + scales.bias


def through_namedtuple(x, pair):
    return x * pair.left + pair.right


def through_subclass_inner(t):
    return t.a * 2 + t.b  # the inner tensors of a traceable wrapper subclass


def through_vmap(x):
    return torch.vmap(lambda row: row * 2 + row.sum())(x)


def through_grad(x):
    return torch.func.grad(lambda t: (t * t).sum())(x)


def through_vmap_of_grad(x):
    return torch.vmap(torch.func.grad(lambda t: (t.sin() * t).sum()))(x)


def _inputs(name: str) -> tuple[object, ...]:
    x = torch.arange(6.0).reshape(2, 3)
    return {
        "frozen_dataclass": (x, Scales(torch.full((3,), 2.0), torch.ones(3))),
        "namedtuple": (x, Pair(torch.full((3,), 2.0), torch.ones(3))),
        "subclass_inner": (TwoTensor(x, x + 1),),
        "vmap": (x,),
        "grad": (x,),
        "vmap_of_grad": (x,),
    }[name]


CASES = {
    "frozen_dataclass": through_frozen_dataclass,
    "namedtuple": through_namedtuple,
    "subclass_inner": through_subclass_inner,
    "vmap": through_vmap,
    "grad": through_grad,
    "vmap_of_grad": through_vmap_of_grad,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_calls_in_raise_mode(name: str) -> None:
    fn = CASES[name]
    with rg.strict("raise"):
        guarded = rg.allow_in_graph(fn)
    args = _inputs(name)
    torch.testing.assert_close(guarded(*args), fn(*args))  # the first calls run the TorchFunctionMode
    assert rg.registry.violations() == []


@pytest.mark.parametrize("name", ["frozen_dataclass", "namedtuple", "vmap", "grad"])
def test_compiled_calls_in_raise_mode(name: str) -> None:
    fn = CASES[name]
    with rg.strict("raise"):
        guarded = rg.allow_in_graph(fn)
    args = _inputs(name)
    compiled = torch.compile(lambda *a: guarded(*a) + 0, backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(compiled(*args), fn(*args))
    assert rg.registry.violations() == []


LINEAR = torch.nn.Linear(3, 2)


def through_functional_call(x, weight, bias):
    return torch.func.functional_call(LINEAR, {"weight": weight, "bias": bias}, (x,))


def test_functional_call_uses_the_tensors_passed_in() -> None:
    with rg.strict("warn"), pytest.warns(rg.ContractWarning, match="AIG301 .*module 'LINEAR'"):
        guarded = rg.allow_in_graph(through_functional_call)  # capturing the module is still reported
    w, b = torch.ones(2, 3), torch.zeros(2)
    torch.testing.assert_close(guarded(torch.ones(1, 3), w, b), torch.full((1, 2), 3.0))
    assert [v.code for v in rg.registry.violations()] == ["AIG301"]  # and nothing else: w and b were passed in


CAPTURED = torch.ones(3)


def test_a_tensor_captured_inside_vmap_is_still_reported() -> None:
    def reads_a_global(x):
        return torch.vmap(lambda row: row * CAPTURED)(x)

    with rg.strict("warn"), pytest.warns(rg.ContractWarning):
        guarded = rg.allow_in_graph(reads_a_global)
    rg.registry.clear_violations()
    with pytest.warns(rg.ContractWarning, match="AIG301 captured-tensor: uses the captured tensor 'CAPTURED'"):
        guarded(torch.ones(2, 3))


def test_arguments_past_the_walks_bound_are_not_called_captured(monkeypatch: pytest.MonkeyPatch) -> None:
    from runtime_guard import reachable

    monkeypatch.setattr(reachable, "LIMIT", 8)
    many = [torch.full((2,), float(i)) for i in range(20)]
    assert not reachable.argument_tensors((torch.ones(2), many), {}).complete

    with rg.strict("raise"):

        @rg.allow_in_graph
        def last_two(x, xs):
            return x * xs[-1] + xs[-2]

    for _ in range(2):  # the traced eager calls: the capture mode runs, knowing it has not seen them all
        torch.testing.assert_close(last_two(torch.ones(2), many), torch.full((2,), 37.0))
    assert rg.registry.violations() == []


def test_arguments_nested_deep_or_in_a_cycle_are_known() -> None:
    inner = torch.ones(2)
    nested: list[object] = [inner]
    for _ in range(3000):
        nested = [nested]
    cycle: list[object] = [inner]
    cycle.append(cycle)

    with rg.strict("raise"):

        @rg.allow_in_graph
        def innermost(x, deep, loop):
            while isinstance(deep, list):
                deep = deep[0]
            return x * deep + loop[0]

    torch.testing.assert_close(innermost(torch.ones(2), nested, cycle), torch.full((2,), 2.0))
    assert rg.registry.violations() == []
