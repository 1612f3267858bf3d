"""``check_allow_in_graph`` reports every failure and lets no exception escape."""

from __future__ import annotations

import pytest
import torch

import runtime_guard as rg


def refuses_negative(x):
    if bool((x < 0).any()):
        raise ValueError("refuses_negative: negative input")
    return x * 2


def test_a_reference_call_that_raises_is_a_failure_of_the_report() -> None:
    with pytest.raises(rg.SelfTestError) as info:
        rg.check_allow_in_graph(refuses_negative, -torch.ones(2), runs=(("eager", False),))
    [result] = info.value.report.results
    assert result.backend == "uncompiled"
    assert "the reference (uncompiled) call raised ValueError: refuses_negative: negative input" in str(info.value)


class Shift(torch.nn.Module):
    def forward(self, x):
        return x + 1


def with_module(x, layer):
    return layer(x)


def returns_dict(x):
    return {"y": x * 2}


@pytest.mark.parametrize(
    "fn, args, code",
    [(with_module, (torch.ones(2), Shift()), "AIG101"), (returns_dict, (torch.ones(2),), "AIG201")],
    ids=["module-argument", "dict-result"],
)
def test_what_torch_cannot_compile_carries_the_contract_code(fn, args, code: str) -> None:
    with pytest.raises(rg.SelfTestError) as info:
        rg.check_allow_in_graph(fn, *args, runs=(("eager", False),))
    assert info.value.codes[0] == code and info.value.code == code
    assert "torch.compile of the call raised Unsupported" in str(info.value)


def test_a_collective_on_a_fake_process_group_is_reported_as_such() -> None:
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore

    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=2)
    try:

        def reduce(x):
            y = x.clone()
            dist.all_reduce(y)
            return y

        with pytest.raises(rg.SelfTestError) as info:
            rg.check_allow_in_graph(reduce, torch.ones(4), runs=(("eager", False), ("inductor", False)))
    finally:
        dist.destroy_process_group()
    text = str(info.value)
    assert "inductor: failed: torch.compile of the call raised InductorError" in text
    assert [r.ok for r in info.value.report.results] == [True, False]


def test_a_property_getter_is_diagnosed_by_what_dynamo_does() -> None:
    with rg.strict("raise"), pytest.raises(rg.ContractViolation, match="property getter") as info:

        class Holder:
            @property
            @rg.allow_in_graph
            def value(self):
                return torch.ones(2)

    assert info.value.code == "AIG101"
    assert "gives up on the whole calling function, which then runs uncompiled" in info.value.detail
