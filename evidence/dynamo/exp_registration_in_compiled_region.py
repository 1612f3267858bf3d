"""D17: allow_in_graph called inside a compiled region: graph breaks, by who makes the call.

A compiled f(x) registers a function and calls it: register(inner)(x * 2) * 3, directly and
from a helper that f calls. register is torch's allow_in_graph, a Python function Dynamo
traces that calls a torch.compiler.disable'd one (the shape of the guard before D17), a
disable'd function itself (the guard's shape now), and the guard in off / warn / raise
mode, called directly and through install(). For each: the graphs compiled, the graph
breaks Dynamo counted (torch._dynamo.utils.counters["graph_break"], one per entry that
TORCH_LOGS=graph_breaks prints), the frames it tried to compile, and the result. Then what
a disable'd function sees when called after the graph break: is_dynamo_compiling(), and
whether its caller runs code Dynamo generated (torch._dynamo.convert_frame.output_codes).

Run: python evidence/dynamo/exp_registration_in_compiled_region.py (writes nothing).
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the guard of this checkout

import torch  # noqa: E402
import torch._dynamo  # noqa: E402
from torch._dynamo import convert_frame  # noqa: E402
from torch._dynamo.testing import CompileCounterWithBackend  # noqa: E402
from torch._dynamo.utils import counters  # noqa: E402

import runtime_guard as rg  # noqa: E402

print(f"torch {torch.__version__}")


@torch.compiler.disable
def _disabled_register(fn):
    return torch._dynamo.allow_in_graph(fn)


def traced_then_disabled(fn):
    """A function Dynamo traces, calling a disable'd one."""
    return _disabled_register(fn)


def _traced_inner(fn, compiling):
    return _disabled_register(fn)


def traced_twice_then_disabled(fn):
    """The guard's shape before D17: allow_in_graph -> _allow (both traced), which read
    is_dynamo_compiling() and passed it to the disable'd registration."""
    return _traced_inner(fn, torch.compiler.is_dynamo_compiling())


@torch.compiler.disable
def disabled(fn):
    """A disable'd function: the guard's shape now."""
    return torch._dynamo.allow_in_graph(fn)


def by_torch_name(fn):
    return torch.compiler.allow_in_graph(fn)


def shapes(register):
    def inner(x):
        return x + 1

    def direct(x):
        return register(inner)(x * 2) * 3

    def helper(x):
        return register(inner)(x) - 1

    def through_helper(x):
        return helper(x * 2) * 3

    return {"direct": direct, "from a helper": through_helper}


def measure(label, register, mode=None, install=False):
    for shape in ("direct", "from a helper"):
        body = shapes(register)[shape]
        torch._dynamo.reset()
        counters.clear()
        rg.set_strict(mode or "off")
        rg.registry.clear_violations()
        if install:
            rg.install()
        counter = CompileCounterWithBackend("eager")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = str(torch.compile(body, backend=counter)(torch.ones(2)).tolist())
            except Exception as error:  # noqa: BLE001
                result = f"RAISES {type(error).__name__}: {str(error).splitlines()[0][:90]}"
        rg.uninstall()
        rg.set_strict("off")
        codes = sorted({w.message.code for w in caught if isinstance(w.message, rg.ContractWarning)})
        print(
            f"  {label:<44} {shape:<14} graphs={counter.frame_count} "
            f"graph_breaks={sum(counters['graph_break'].values())} frames={counters['frames']['total']} "
            f"-> {result} {' '.join(codes)}"
        )


print("\n== graph breaks of a registration inside a compiled function")
measure("torch.compiler.allow_in_graph", torch.compiler.allow_in_graph)
measure("torch.compiler.allow_in_graph via a helper", by_torch_name)
measure("traced function -> disable'd function", traced_then_disabled)
measure("traced -> traced -> disable'd (guard before)", traced_twice_then_disabled)
measure("disable'd function", disabled)
for mode in ("off", "warn", "raise"):
    measure(f"rg.allow_in_graph ({mode})", rg.allow_in_graph, mode)
measure("install(), torch name via a helper (warn)", by_torch_name, "warn", install=True)


print("\n== what a disable'd function sees when called after the graph break")
seen = []


@torch.compiler.disable
def look(fn):
    caller = sys._getframe(1)
    while caller.f_code.co_filename.startswith(os.path.dirname(torch.__file__)):
        caller = caller.f_back  # torch.compiler.disable's own wrapper frames
    seen.append((torch.compiler.is_dynamo_compiling(), caller.f_code in convert_frame.output_codes))
    return fn


def calls_look(x):
    return look(torch.sin)(x) * 2


torch._dynamo.reset()
torch.compile(calls_look, backend="eager")(torch.ones(2))
calls_look(torch.ones(2))
print(f"  from compiled code: is_dynamo_compiling()={seen[0][0]}, caller's code generated by Dynamo={seen[0][1]}")
print(f"  from eager code:    is_dynamo_compiling()={seen[1][0]}, caller's code generated by Dynamo={seen[1][1]}")
