"""The ``aigcheck`` backend tells the user what happened: a registration lost to a graph
break (AIG402, with Dynamo's reason), a captured tensor (the guard's ContractViolation),
and a report for every graph of a compile."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch._dynamo
from guard_violations import codes

import runtime_guard as rg
from runtime_guard import backend as aig


def scale_by_layer(x, layer):
    return layer(x) * 2


torch.compiler.allow_in_graph(scale_by_layer)


def test_a_graph_break_at_a_registered_call_is_aig402_with_dynamos_reason() -> None:
    aig.clear_reports()
    layer = torch.nn.Identity()
    fn = torch.compile(lambda x: scale_by_layer(x + 0, layer) * 1, backend="aigcheck")
    with pytest.warns(rg.ContractWarning, match="AIG402 ineffective-registration") as caught:
        assert torch.equal(fn(torch.ones(3)), torch.full((3,), 2.0))
    [warning] = [w for w in caught if "AIG402" in str(w.message)]
    assert "traced its body into the graph" in str(warning.message)
    assert "Dynamo's reason: Failed to convert args/kwargs to proxy" in str(warning.message)
    assert codes() == ["AIG402"]
    assert [r.traced_bodies for r in aig.reports() if r.traced_bodies] == [("scale_by_layer",)]


late = None


def test_a_captured_tensor_surfaces_as_the_guards_contract_violation() -> None:
    with rg.strict("warn"):

        @rg.allow_in_graph
        def scale(x):
            return x * late

    globals()["late"] = torch.ones(4)  # bound after registration: only the trace-time check sees it
    try:
        fn = torch.compile(lambda x: scale(x + 0) * 1, backend="aigcheck")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(torch._dynamo.exc.TorchRuntimeError) as info:
                fn(torch.ones(4))
    finally:
        globals()["late"] = None
    text = str(info.value)
    assert "ContractViolation" in text and "AIG301 captured-tensor: uses the captured tensor 'late'" in text
    assert text.index("AIG301") < text.index("Please convert all Tensors to FakeTensors first")  # torch's, kept after
    assert codes() == ["AIG301"]


def test_reports_cover_every_graph_of_a_compile() -> None:
    aig.clear_reports()

    def two_graphs(x):
        x = x.sin()
        torch._dynamo.graph_break()
        return x.cos()

    torch.compile(two_graphs, backend="aigcheck")(torch.ones(2))
    found = aig.reports()
    assert len(found) == 2 and found[-1] is aig.last_report()
    assert [r.compile_id for r in found] == ["0/0", "1/0"]
    assert aig.reports(compile_id="0/0") == [found[0]]
    assert "Call to `torch._dynamo.graph_break()`" in found[0].graph_breaks[0].summary
    assert "use :func:`reports` to see them all" in (aig.last_report.__doc__ or "")
