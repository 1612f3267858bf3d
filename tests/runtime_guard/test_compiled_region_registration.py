"""``allow_in_graph`` called inside a compiled region: the guard reports AIG404 and costs no
graph break that torch's own ``allow_in_graph`` does not (evidence/dynamo/FINDINGS.md D17).

Torch graph-breaks once at such a call and runs it eagerly. The guard must do the same: a
second graph break, in a frame of the guard that Dynamo compiles when the call runs
eagerly, is a graph break in the user's ``explain()`` and graph-break logs that plain
torch does not have.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch._dynamo
from guard_violations import codes
from torch._dynamo.testing import CompileCounterWithBackend
from torch._dynamo.utils import counters

import runtime_guard as rg


def _inner() -> Callable[[torch.Tensor], torch.Tensor]:
    """A function not registered yet (the guard checks a function once, when first registered)."""

    def inner(x: torch.Tensor) -> torch.Tensor:
        return x + 1

    return inner


def _registering(register: Callable[[Any], Any]) -> Callable[[torch.Tensor], torch.Tensor]:
    inner = _inner()

    def body(x: torch.Tensor) -> torch.Tensor:
        return register(inner)(x * 2) * 3

    return body


def _through_a_helper(register: Callable[[Any], Any]) -> Callable[[torch.Tensor], torch.Tensor]:
    inner = _inner()

    def helper(x: torch.Tensor) -> torch.Tensor:
        return register(inner)(x) - 1

    def body(x: torch.Tensor) -> torch.Tensor:
        return helper(x * 2) * 3

    return body


SHAPES = {"in the compiled function": _registering, "in a function it calls": _through_a_helper}


def _measured(body: Callable[[torch.Tensor], torch.Tensor]) -> tuple[int, int, list[float]]:
    """Graphs compiled and graph breaks Dynamo logged (``TORCH_LOGS=graph_breaks`` prints one
    entry per break) for one call of ``body``, and its result. ``torch._dynamo.explain``
    counts neither: it reports 0 breaks for torch's own call too."""
    torch._dynamo.reset()
    counters.clear()
    counter = CompileCounterWithBackend("eager")
    result = torch.compile(body, backend=counter)(torch.ones(2)).tolist()
    return counter.frame_count, sum(counters["graph_break"].values()), result


def _by_torch_name(fn: Any) -> Any:
    """A registration through torch's name, which ``install()`` routes through the guard."""
    return torch.compiler.allow_in_graph(fn)


@pytest.fixture(scope="module")
def plain() -> dict[tuple[str, str], tuple[int, int, list[float]]]:
    """What torch's own ``allow_in_graph`` costs, per shape, called directly or by a helper."""
    return {
        (shape, spelling): _measured(make(register))
        for shape, make in SHAPES.items()
        for spelling, register in (("direct", torch.compiler.allow_in_graph), ("by name", _by_torch_name))
    }


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("mode", ["off", "warn"])
def test_the_guard_adds_no_graph_break(plain, shape: str, mode: str) -> None:
    rg.set_strict(mode)
    assert _measured(SHAPES[shape](rg.allow_in_graph)) == plain[shape, "direct"]
    assert set(codes()) == (set() if mode == "off" else {"AIG404"})


@pytest.mark.parametrize("shape", SHAPES)
def test_installed_adds_no_graph_break(plain, shape: str) -> None:
    rg.set_strict("warn")
    rg.install()
    assert _measured(SHAPES[shape](_by_torch_name)) == plain[shape, "by name"]
    assert set(codes()) == {"AIG404"}


def test_warn_names_the_registration_in_a_compiled_region() -> None:
    rg.set_strict("warn")
    with pytest.warns(rg.ContractWarning, match=r"allow_in_graph\(\S*inner\) registered at .*AIG404"):
        torch.compile(_registering(rg.allow_in_graph), backend="eager")(torch.ones(2))


def test_raise_raises_the_contract_violation_itself() -> None:
    rg.set_strict("raise")
    with pytest.raises(rg.ContractViolation, match="AIG404 registration-in-compiled-region") as info:
        torch.compile(_registering(rg.allow_in_graph), backend="eager")(torch.ones(2))
    assert info.value.code == "AIG404"


def test_a_registration_outside_a_compiled_region_is_not_aig404() -> None:
    rg.set_strict("warn")
    inner = rg.allow_in_graph(_inner())
    assert torch.compile(lambda x: inner(x) * 2, backend="eager")(torch.ones(2)).tolist() == [4.0, 4.0]
    assert codes() == []
