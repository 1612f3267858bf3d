"""The registry, install()/uninstall(), and the registration-time kind checks (AIG402-AIG405)."""

from __future__ import annotations

import functools
import gc
import pickle

import pytest
import torch
import torch._dynamo
from guard_violations import codes

import runtime_guard as rg
from runtime_guard.api import installed_allow_in_graph


def test_registration_is_recorded_and_removed_when_collected() -> None:
    gc.collect()  # earlier tests' registrations must not be collected in the middle of this one
    before = len(rg.registry)
    with rg.strict("warn"):

        @rg.allow_in_graph
        def double(x):
            return x * 2

    entry = rg.registry.lookup(double)
    assert entry is not None and entry in list(rg.registry) and len(rg.registry) == before + 1
    assert entry.function is double.__wrapped__ and entry.wrapper is double
    assert entry.mode is rg.Strict.WARN and entry.site == f"{__file__}:{double.__wrapped__.__code__.co_firstlineno}"
    double(torch.ones(2))
    double(torch.ones(2))
    assert entry.calls_checked == 2
    del double
    gc.collect()
    assert entry not in list(rg.registry) and len(rg.registry) <= before
    assert entry.function is None


def test_registering_twice_returns_the_same_wrapper() -> None:
    def double(x):
        return x * 2

    with rg.strict("raise"):
        first = rg.allow_in_graph(double)
        assert rg.allow_in_graph(double) is first
        assert rg.allow_in_graph(first) is first


def test_lists_and_tuples_return_a_list() -> None:
    def a(x):
        return x

    def b(x):
        return x

    with rg.strict("warn"):
        registered = rg.allow_in_graph((a, b))
    assert isinstance(registered, list) and [f.__wrapped__ for f in registered] == [a, b]
    assert rg.allow_in_graph([a]) == [a]  # off: the functions themselves, like torch


def test_violations_are_recorded_once_and_cleared() -> None:
    with rg.strict("warn"):

        @rg.allow_in_graph
        def ratio(x):
            return 0.5

    with pytest.warns(rg.ContractWarning):
        ratio(torch.ones(1))
    ratio(torch.ones(1))  # the same violation again: recorded once, warned once
    [violation] = rg.registry.violations()
    assert (violation.code, violation.function, violation.name) == (
        "AIG202",
        "test_violations_are_recorded_once_and_cleared.<locals>.ratio",
        "baked-scalar-return",
    )
    assert violation.message.startswith(
        "allow_in_graph(test_violations_are_recorded_once_and_cleared.<locals>.ratio) registered at "
    )
    rg.registry.clear_violations()
    assert rg.registry.violations() == []


def test_raise_mode_raises_every_time_and_records() -> None:
    with rg.strict("raise"):

        @rg.allow_in_graph
        def ratio(x):
            return 0.5

    for _ in range(2):
        with pytest.raises(rg.ContractViolation) as info:
            ratio(torch.ones(1))
    assert (info.value.code, info.value.function) == ("AIG202", ratio.__qualname__)
    assert codes() == ["AIG202"]


def test_install_patches_both_names_and_uninstall_restores() -> None:
    originals = (torch.compiler.allow_in_graph, torch._dynamo.allow_in_graph)
    rg.install()
    rg.install()
    assert rg.installed() and torch.compiler.allow_in_graph is installed_allow_in_graph
    assert torch._dynamo.allow_in_graph is installed_allow_in_graph
    with rg.strict("raise"):

        def library_fn(x):
            return x + 1

        assert torch.compiler.allow_in_graph(library_fn).__wrapped__ is library_fn
    rg.uninstall()
    rg.uninstall()
    assert (torch.compiler.allow_in_graph, torch._dynamo.allow_in_graph) == originals and not rg.installed()


class Box:
    def __init__(self) -> None:
        self.k = 2.0
        self._scale = rg.allow_in_graph(self.scale)  # saved per instance: honoured (D7)

    def scale(self, x):
        return x * self.k

    @classmethod
    def make(cls, x):
        return x


class Caller:
    def __call__(self, x):
        return x


class NamedCaller(Caller):
    __name__ = "named_caller"


@pytest.mark.parametrize(
    "make, code, text",
    [
        (lambda: functools.partial(torch.add, other=1), "AIG402", "functools.partial"),
        (lambda: Box.__new__(Box).scale, "AIG402", "bound method"),
        (lambda: Box.make, "AIG402", "classmethod"),
        (lambda: torch.nn.ReLU(), "AIG402", "nn.Module instance"),
        (lambda: torch.nn.ReLU, "AIG402", "nn.Module class"),
        (lambda: Caller(), "AIG403", "without a __name__"),
        (lambda: 42, "AIG405", "expects a callable, got int"),
        (lambda: staticmethod(len), "AIG405", "staticmethod"),
    ],
    ids=[
        "partial",
        "bound-method",
        "classmethod",
        "module",
        "module-class",
        "callable-instance",
        "int",
        "staticmethod",
    ],
)
def test_target_kinds(make, code: str, text: str) -> None:
    with rg.strict("raise"), pytest.raises(rg.ContractViolation, match=text) as info:
        rg.allow_in_graph(make())
    assert info.value.code == code


def test_works_in_practice_kinds_are_not_reported() -> None:
    with rg.strict("raise"):
        rg.allow_in_graph(NamedCaller())  # D6: a callable instance with a __name__ works
    assert codes() == []
    with rg.strict("warn"), pytest.warns(rg.ContractWarning, match="AIG302 .*object attribute 'self.k'"):
        Box()  # D7: a bound method saved per instance is honoured; reading self.k is AIG302
    assert codes() == ["AIG302"]


def test_method_decorated_in_a_class_body() -> None:
    with rg.strict("raise"), pytest.raises(rg.ContractViolation, match="decorated in a class body"):

        class Holder:
            @rg.allow_in_graph
            def meth(self, x):
                return x


def test_registration_inside_a_compiled_region_aig404() -> None:
    def inner(x):
        return x + 1

    def f(x):
        g = rg.allow_in_graph(inner)
        return g(x) * 2

    with rg.strict("warn"), pytest.warns(rg.ContractWarning, match="AIG404"):
        out = torch.compile(f, backend="eager")(torch.ones(2))
    assert torch.equal(out, torch.full((2,), 4.0))
    assert "AIG404" in codes()


def test_autograd_function_classes_are_registered_themselves() -> None:
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    with rg.strict("raise"):
        assert rg.allow_in_graph(Double) is Double  # Dynamo looks the class up at Double.apply
    x = torch.ones(2, requires_grad=True)
    torch.compile(lambda x: Double.apply(x + 0) * 1, backend="aot_eager", fullgraph=True)(x).sum().backward()
    assert torch.equal(x.grad, torch.full((2,), 2.0))


def test_exceptions_pickle_with_their_violation() -> None:
    violation = rg.Violation("AIG301", "f", "m.py:1", "reads tensor 'w'")
    error = pickle.loads(pickle.dumps(rg.ContractViolation(violation)))
    assert (error.code, error.function, error.site, error.detail) == ("AIG301", "f", "m.py:1", "reads tensor 'w'")
    assert str(error) == violation.message


def test_autograd_function_captures_are_checked_at_registration() -> None:
    import runtime_guard as rg

    weight = torch.ones(4)

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * weight

        @staticmethod
        def backward(ctx, grad):
            return grad * weight

    with rg.strict("warn"), pytest.warns(rg.ContractWarning):
        registered = rg.allow_in_graph(Scale)
    assert registered is Scale  # the class itself: Dynamo looks it up at Scale.apply
    found = [(v.code, v.detail.split(":")[0].rpartition("<locals>.")[2]) for v in rg.registry.violations()]
    assert ("AIG301", "Scale.forward") in found and ("AIG301", "Scale.backward") in found
