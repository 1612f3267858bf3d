"""Mutable state the guard must see: module attributes (``config.X``), object attributes of
any scalar type, and re-created closures whose first copy is gone."""

from __future__ import annotations

import gc

import pytest
import settings_module as config
import torch
from guard_violations import codes

import runtime_guard as rg


def scaled_loss(x):
    return x * config.LOSS_SCALE


def test_module_attribute_rebound_by_a_setter_aig302_and_stale_under_inductor() -> None:
    with (
        rg.strict("warn"),
        pytest.warns(
            rg.ContractWarning,
            match=r"AIG302 .*module attribute 'config.LOSS_SCALE' from module 'settings_module', "
            r"which 'settings_module.set_loss_scale' rebinds",
        ),
    ):
        kernel = rg.allow_in_graph(scaled_loss)
    fn = torch.compile(lambda x: kernel(x + 0) * 1, backend="inductor")
    x = torch.ones(2)
    try:
        assert torch.equal(fn(x), x * 2.0)
        config.set_loss_scale(3.0)
        assert torch.equal(fn(x), x * 2.0)  # stale: what the guard reported
    finally:
        config.set_loss_scale(2.0)
    assert codes() == ["AIG302"]


def test_the_probe_changes_a_module_attribute_and_finds_it_frozen() -> None:
    with pytest.raises(rg.ContractViolation) as info:
        rg.check_allow_in_graph(scaled_loss, torch.ones(4), runs=(("aot_eager", False),))
    assert "AIG302" in info.value.codes
    assert "module attribute 'config.LOSS_SCALE'" in str(info.value)
    assert config.LOSS_SCALE == 2.0  # restored


class Options:
    def __init__(self) -> None:
        self.eps = 1e-3
        self.use_shift = True


class Defaults:
    eps = 1e-3  # a class attribute, read through the instance
    use_shift = True


OPTIONS, DEFAULTS = Options(), Defaults()


def with_options(x):
    return x + OPTIONS.eps if OPTIONS.use_shift else x


def with_defaults(x):
    return x + DEFAULTS.eps if DEFAULTS.use_shift else x


@pytest.mark.parametrize(
    "fn, owner", [(with_options, "OPTIONS"), (with_defaults, "DEFAULTS")], ids=["instance", "class"]
)
def test_every_scalar_attribute_is_judged_alike(fn, owner: str) -> None:
    with rg.strict("warn"), pytest.warns(rg.ContractWarning):
        rg.allow_in_graph(fn)
    found = sorted(v.detail.split("'")[1] for v in rg.registry.violations())
    assert found == [f"{owner}.eps", f"{owner}.use_shift"]
    assert codes() == ["AIG302", "AIG302"]


def test_the_probe_changes_an_object_attribute() -> None:
    with pytest.raises(rg.ContractViolation) as info:
        rg.check_allow_in_graph(with_options, torch.ones(4), runs=(("aot_eager", False),))
    assert "the compiled call kept the value of object attribute 'OPTIONS.eps'" in str(info.value)
    assert OPTIONS.eps == 1e-3 and OPTIONS.use_shift is True


def test_recreated_closure_after_the_first_was_collected_aig401() -> None:
    def make(k: float):
        def scale(x):
            return x * k

        return scale

    with rg.strict("warn"):
        first = rg.allow_in_graph(make(2.0))
        del first
        gc.collect()
        with pytest.warns(rg.ContractWarning, match="AIG401 recreated-closure"):
            rg.allow_in_graph(make(3.0))
    assert codes() == ["AIG401"]
