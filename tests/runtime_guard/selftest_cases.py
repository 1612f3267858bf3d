"""Clean registrations from ``fixtures/good``, and planted mistakes, for running the self
test under every way a function can be registered and guarded.

A module of its own so that a child pytest (``pytest --aig-strict``) runs the very same
cases: it puts this folder on ``sys.path`` and imports it.
"""

from __future__ import annotations

import itertools
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

import runtime_guard as rg

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "fixtures" / "good"
#: One backend is enough: what is judged is the registration, not the compilers.
RUNS = (("aot_eager", False),)

_names = itertools.count()


def load(path: Path, through_guard: bool = False) -> types.ModuleType:
    """Import the file at ``path`` as a new module; ``through_guard``: its
    ``torch.compiler.allow_in_graph`` is spelled ``runtime_guard.allow_in_graph``."""
    source = path.read_text(encoding="utf-8")
    if through_guard:
        source = source.replace("torch.compiler.allow_in_graph", "runtime_guard.allow_in_graph")
    name = f"{path.stem}_{next(_names)}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    module.runtime_guard = rg  # type: ignore[attr-defined]
    sys.modules[name] = module
    exec(compile(source, str(path), "exec"), module.__dict__)  # noqa: S102 - a fixture of this repository
    return module


def clean_cases(through_guard: bool = False) -> dict[str, tuple[Callable[..., Any], tuple[Any, ...]]]:
    """Every clean registration of three fixtures (decorators, call forms bound to another
    name and discarded, a list, a decorator factory, a def made by a factory, callable instances), with arguments."""
    fused = load(GOOD / "fused_ops.py", through_guard)
    quant = load(GOOD / "quant_utils.py", through_guard)
    kernels = load(GOOD / "kernel_registry.py", through_guard)
    x = torch.randn(2, 8, requires_grad=True)
    return {
        "fused_bias_gelu": (fused.fused_bias_gelu, (x, torch.randn(8))),
        "rms_norm": (fused.rms_norm, (x, torch.ones(8))),
        "layer_norm_no_bias": (fused.layer_norm_no_bias, (x, torch.ones(8))),
        "swiglu": (fused.swiglu, (x, torch.randn(2, 8))),
        "rotate_half": (fused.rotate_half, (x,)),
        "apply_rotary": (fused.apply_rotary, (x, x + 1, torch.randn(8), torch.randn(8))),
        "padded_scale": (fused.padded_scale, (x, torch.tensor(4.0))),
        "rotary_frequencies": (fused.rotary_frequencies, (torch.arange(4), torch.randn(4))),
        "chunked_softplus": (fused.chunked_softplus, (torch.randn(8, 2), 1.0, 20.0)),
        "gated_residual": (fused.gated_residual, (x, x + 1, x * 2)),
        "quantize_symmetric": (quant.quantize_symmetric, (torch.randn(4, 4), torch.tensor(0.1))),
        "observe_histogram": (quant.observe_histogram, (torch.randn(16), 8)),
        "per_channel_absmax": (quant.per_channel_absmax, (torch.randn(4, 4),)),
        "bias_dropout_add": (kernels.bias_dropout_add, (x, torch.randn(8), x * 2, 0.0, False)),
        "masked_mean": (kernels.masked_mean, (x, torch.ones(2, 8), 1)),
        "squared_relu": (kernels.squared_relu, (x,)),
        "top_k_gating": (kernels.top_k_gating, (torch.randn(2, 8), 2)),
    }


#: A result holding a Python float (AIG202): found while the self test traces, in every mode.
PLANTED = """
import torch

@{register}
def with_baked_ratio(x):
    return x * 2, 0.5
"""


def planted(through_guard: bool, folder: Path) -> Callable[..., Any]:
    """The planted mistake, registered through the guard or through torch's name."""
    path = folder / "planted.py"
    path.write_text(PLANTED.format(register="torch.compiler.allow_in_graph"), encoding="utf-8")
    return load(path, through_guard).with_baked_ratio  # type: ignore[no-any-return]


def failures(cases: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]]) -> dict[str, str]:
    """What the self test says of each case that fails, by name."""
    found: dict[str, str] = {}
    for name, (fn, args) in cases.items():
        try:
            rg.check_allow_in_graph(fn, *args, runs=RUNS)
        except rg.SelfTestError as error:
            found[name] = str(error)
    return found


def codes_of_planted(fn: Callable[..., Any]) -> tuple[str, ...]:
    """The codes the self test reports for the planted mistake (empty when it passes)."""
    try:
        rg.check_allow_in_graph(fn, torch.ones(4), runs=RUNS)
    except rg.SelfTestError as error:
        return error.codes
    return ()
