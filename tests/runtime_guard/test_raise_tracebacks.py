"""In raise mode a violation found while Dynamo traces reaches the user as the
``ContractViolation`` itself, with its code, not wrapped in Dynamo's ``TorchRuntimeError``
or ``InternalTorchDynamoError`` (evidence/dynamo/FINDINGS.md D18).

Each violation here is visible only when the function is called (the registration-time
checks find nothing), so it is found while Dynamo traces the call.
"""

from __future__ import annotations

import traceback
import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch
from guard_violations import codes

import runtime_guard as rg

late = None  # bound to a tensor only after the function reading it is registered


class Settings:
    """A user object: not a value Dynamo can put in a graph (AIG101)."""

    k = 2.0


def _scalar_result() -> tuple[Callable[..., Any], Callable[[torch.Tensor], Any]]:
    @rg.allow_in_graph
    def ratio(x):
        return x.shape[0] / 8  # a Python float (AIG202)

    return ratio, lambda x: x * ratio(x + 0)


def _captured_tensor() -> tuple[Callable[..., Any], Callable[[torch.Tensor], Any]]:
    @rg.allow_in_graph
    def scale(x):
        return x * late  # a tensor it was not given (AIG301)

    return scale, lambda x: scale(x + 0) * 1


def _unproxyable_argument() -> tuple[Callable[..., Any], Callable[[torch.Tensor], Any]]:
    @rg.allow_in_graph
    def scaled(x, settings):
        return x * 2

    # Dynamo cannot proxy the argument: it graph-breaks and compiles the wrapper's own
    # frame, where the guard checks the arguments while Dynamo traces bytecode.
    return scaled, lambda x: scaled(x + 0, Settings()) * 1


#: Each case: what registers the function and makes its caller, and what it violates.
CASES = {
    "scalar result": (_scalar_result, "AIG202 baked-scalar-return"),
    "captured tensor": (_captured_tensor, "AIG301 captured-tensor"),
    "unproxyable argument": (_unproxyable_argument, "AIG101 unproxyable-parameter"),
}


@pytest.fixture
def raising():
    rg.set_strict("raise")
    globals()["late"] = None
    yield
    globals()["late"] = None


def _raised(case: str, backend: str, **options: Any) -> pytest.ExceptionInfo[rg.ContractViolation]:
    _, caller = CASES[case][0]()
    globals()["late"] = torch.ones(4)
    compiled = torch.compile(caller, backend=backend, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's own warnings about graph breaks
        with pytest.raises(rg.ContractViolation) as info:
            compiled(torch.ones(4))
    return info


def _last_line(error: BaseException) -> str:
    return traceback.format_exception(type(error), error, error.__traceback__)[-1]


@pytest.mark.parametrize("backend", ["inductor", "aigcheck", "eager"])
@pytest.mark.parametrize("case", CASES)
def test_the_violation_is_raised_as_itself(raising, case: str, backend: str) -> None:
    info = _raised(case, backend)
    expected = CASES[case][1]
    code = expected.split()[0]
    assert info.value.code == code
    assert type(info.value) is rg.ContractViolation  # raised eagerly, from the call itself
    assert _last_line(info.value).startswith("runtime_guard.errors.ContractViolation: allow_in_graph(")
    assert expected in _last_line(info.value)
    assert code in codes()


@pytest.mark.parametrize("case", ["scalar result", "captured tensor"])
def test_fullgraph_raises_the_violation_too(raising, case: str) -> None:
    """With ``fullgraph=True`` Dynamo makes a graph break an error and raises it as it is."""
    info = _raised(case, "eager", fullgraph=True)
    expected = CASES[case][1]
    assert info.value.code == expected.split()[0]
    assert expected in _last_line(info.value)


def test_each_later_call_raises_again(raising) -> None:
    _, caller = _scalar_result()
    compiled = torch.compile(caller, backend="eager")
    for _ in range(5):  # more calls than the guard checks eagerly
        with pytest.raises(rg.ContractViolation, match="AIG202"):
            compiled(torch.ones(4))


def test_warn_mode_compiles_as_plain_torch_does() -> None:
    """Warn mode changes nothing Dynamo does: the violation is warned, the compile unchanged."""
    rg.set_strict("warn")
    _, caller = _scalar_result()
    with pytest.warns(rg.ContractWarning, match="AIG202"):
        assert torch.compile(caller, backend="eager")(torch.ones(4)).tolist() == [0.5] * 4


def test_the_aigcheck_backend_raises_the_violation_as_itself() -> None:
    """A violation the backend finds in a graph (here of a function registered with torch's
    own ``allow_in_graph``, which only the backend checks) is not ``BackendCompilerFailed``."""
    from runtime_guard.backend import aigcheck_backend

    def ratio(x):
        return x.shape[0] / 8

    torch.compiler.allow_in_graph(ratio)
    compiled = torch.compile(lambda x: x * ratio(x + 0), backend=aigcheck_backend(strict="raise", compiler="eager"))
    with pytest.raises(rg.ContractViolation) as info:
        compiled(torch.ones(4))
    assert info.value.code == "AIG202"
    assert "AIG202 baked-scalar-return" in _last_line(info.value)


def test_a_violation_deferred_at_registration_is_raised_as_itself(raising) -> None:
    """``pytest --aig-strict`` defers what it finds at import to the calls of the function:
    a compiled call raises it as itself too."""

    weights = torch.ones(4)
    with rg.registry.deferring():

        @rg.allow_in_graph
        def scale(x):
            return x * weights  # AIG301, found at registration

    with pytest.raises(rg.ContractViolation) as info:
        torch.compile(lambda x: scale(x + 0) * 1, backend="eager")(torch.ones(4))
    assert info.value.code == "AIG301"
    assert type(info.value) is rg.ContractViolation
