"""Semantics first: with ``install()`` in warn mode a program behaves as without the guard.

Each case runs the same program twice, with torch's registration and under ``install()``
with strict ``warn``, and compares what Dynamo did (graphs, nodes, graph breaks) and what
the program computed.
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounterWithBackend
from torch._dynamo.utils import counters

import runtime_guard as rg


@contextmanager
def guarded(on: bool) -> Iterator[None]:
    """``install()`` with strict warn (warnings silenced), or nothing."""
    if not on:
        yield
        return
    rg.install()
    try:
        with rg.strict("warn"), warnings.catch_warnings():
            warnings.simplefilter("ignore", rg.ContractWarning)
            yield
    finally:
        rg.uninstall()


def observe(program: Callable[[], torch.Tensor]) -> tuple[list[float], int, list[list[str]], int]:
    """Result, graphs, node targets per graph, graph breaks of one run of ``program``."""
    torch._dynamo.reset()
    counters.clear()
    out, counter = program()
    nodes = [[getattr(n.target, "__name__", str(n.target)) for n in g.graph.nodes] for g in counter.graphs]
    return out.tolist(), counter.frame_count, nodes, sum(counters["graph_break"].values())


def double(x):
    return x * 2


def call_form_program() -> tuple[torch.Tensor, CompileCounterWithBackend]:
    torch._dynamo.allow_in_graph(double)  # call form, result discarded: torch's docs and bias.py
    counter = CompileCounterWithBackend("eager")
    fn = torch.compile(lambda x: double(x + 1) - 1, backend=counter)
    return fn(torch.ones(3)), counter


def test_call_form_keeps_the_function_registered() -> None:
    plain = observe(call_form_program)
    with guarded(True):
        checked = observe(call_form_program)
        entry = rg.registry.lookup(double)
    assert checked == plain and plain[1] == 1 and "double" in plain[2][0]
    assert torch._dynamo.trace_rules.is_callable_allowed(double)
    # Only the registration-time checks and the aigcheck backend can check this one; the registry says so.
    assert entry is not None and entry.checks == {rg.Check.REGISTRATION, rg.Check.BACKEND}


def test_decorator_form_returns_a_wrapper_that_checks_calls() -> None:
    with guarded(True):

        @torch.compiler.allow_in_graph
        def triple(x):
            return x * 3

        entry = rg.registry.lookup(triple)
        assert entry is not None and rg.Check.CALLS in entry.checks and triple.__wrapped__ is entry.function
        assert torch._dynamo.trace_rules.is_callable_allowed(triple.__wrapped__)
    del triple
    gc.collect()
    assert entry.function is None and entry not in list(rg.registry)


def disallow_then_allow_program() -> tuple[torch.Tensor, CompileCounterWithBackend]:
    counter = CompileCounterWithBackend("eager")

    def fn(a):
        return torch.sub(torch.add(a, 1), 1)

    torch._dynamo.disallow_in_graph(torch.sub)
    torch._dynamo.allow_in_graph(torch.sub)  # PyTorch's own test_disallow_in_graph does this
    return torch.compile(fn, backend=counter)(torch.ones(2)), counter


def test_reallowing_a_torch_op_after_disallow_in_graph() -> None:
    plain = observe(disallow_then_allow_program)
    with guarded(True):
        checked = observe(disallow_then_allow_program)
        assert torch._dynamo.allow_in_graph(torch.sin) is torch.sin  # builtins go to torch untouched
    assert checked == plain and plain[1] == 1 and plain[3] == 0


def test_reallowing_a_guarded_function_after_disallow_in_graph() -> None:
    with guarded(True):
        f = torch.compiler.allow_in_graph(double)
        torch._dynamo.disallow_in_graph(f)
        assert torch.compiler.allow_in_graph(f) is f
        counter = CompileCounterWithBackend("eager")
        torch.compile(lambda x: f(x) + 1, backend=counter)(torch.ones(2))
    assert counter.frame_count == 1 and any(n.target is f for n in counter.graphs[0].graph.nodes)


def fallback_program() -> tuple[torch.Tensor, CompileCounterWithBackend]:
    def apply(x, layer):
        return layer(x) * 2

    apply = torch.compiler.allow_in_graph(apply)
    layer = torch.nn.Identity()
    counter = CompileCounterWithBackend("eager")
    fn = torch.compile(lambda x: apply(x + 0, layer) * 1, backend=counter)
    return fn(torch.ones(3)) + fn(torch.ones(3)), counter


def test_a_call_that_graph_breaks_is_traced_as_without_the_guard() -> None:
    plain = observe(fallback_program)
    with guarded(True):
        checked = observe(fallback_program)
    assert checked[:2] == plain[:2] and checked[3] == plain[3] == 1
    assert [len(g) for g in checked[2]] == [len(g) for g in plain[2]]
    assert [v.code for v in rg.registry.violations()] == ["AIG101"]  # found while Dynamo traced it


@pytest.mark.parametrize("mode", ["warn", "raise"])
def test_registering_while_another_thread_compiles(mode: str) -> None:
    """is_compiling() is true in every thread while one compiles (D13): not an AIG404."""
    import threading

    started, registered = threading.Event(), threading.Event()

    def slow_backend(gm, example_inputs):
        started.set()
        registered.wait(10)
        return gm.forward

    compiling = threading.Thread(target=lambda: torch.compile(lambda x: x + 1, backend=slow_backend)(torch.ones(2)))
    compiling.start()
    assert started.wait(60)
    try:
        assert torch.compiler.is_compiling()  # the process-wide flag the guard must not trust
        with rg.strict(mode):
            guarded_double = rg.allow_in_graph(double)
    finally:
        registered.set()
        compiling.join()
    assert [v.code for v in rg.registry.violations()] == []
    entry = rg.registry.lookup(guarded_double)
    assert entry is not None and rg.Check.CALLS in entry.checks and guarded_double is not double
