"""D18: which exceptions raised while Dynamo compiles reach the caller as themselves.

A user exception Boom is raised (1) by a registered function while Dynamo makes its fake
call, (2) by a function Dynamo runs while it traces bytecode (comptime), (3) by a backend.
Each also as a subclass of what Dynamo lets through there: Unsupported (its graph break)
for (1) and (2), with skip_frame for (2), and ShortenTraceback for (3). For each: the
exception the caller of the compiled function gets, whether it is a Boom, and the graph
breaks counted. In (1) the function raises the subclass only while compiling and a plain
Boom when called eagerly, as a guard that checks the eager call again would. Last, the
guard in raise mode, on three violations found while tracing.

Run: python evidence/dynamo/exp_exceptions_while_tracing.py (writes nothing).
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
from torch._dynamo.comptime import comptime  # noqa: E402
from torch._dynamo.eval_frame import skip_code  # noqa: E402
from torch._dynamo.exc import ShortenTraceback, Unsupported  # noqa: E402
from torch._dynamo.utils import counters  # noqa: E402

import runtime_guard as rg  # noqa: E402

print(f"torch {torch.__version__}")


class Boom(Exception):
    pass


class BoomBreak(Boom, Unsupported):
    """A Boom that is also Dynamo's graph break."""


class BoomShort(Boom, ShortenTraceback):
    def __init__(self, *args):
        super().__init__(*args, first_useful_frame=None)


def outcome(fn, *args, **options) -> str:
    torch._dynamo.reset()
    counters.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.compile(fn, **options)(*args)
            result = "returns"
        except Exception as error:  # noqa: BLE001
            kind = "a Boom" if isinstance(error, Boom) else "not a Boom"
            kind += f": {error}" if type(error) is Boom else ""
            result = f"{type(error).__module__}.{type(error).__qualname__} ({kind})"
    return f"{result}; graph_breaks={sum(counters['graph_break'].values())}"


def raising(make):
    @torch.compiler.allow_in_graph
    def g(x):
        if torch.compiler.is_compiling():
            raise make()
        raise Boom("eager call")

    skip_code(g.__code__)  # its eager call is not compiled as a frame of its own (the guard's wrapper is not)
    return lambda x: g(x + 0) * 2


print("\n== (1) raised by a registered function in Dynamo's fake call")
for label, make in (
    ("Boom", lambda: Boom("traced")),
    ("IndexError", lambda: IndexError("traced")),
    ("BoomBreak (Unsupported)", lambda: BoomBreak("traced")),
):
    for backend in ("eager", "inductor"):
        for fullgraph in (False, True):
            result = outcome(raising(make), torch.ones(2), backend=backend, fullgraph=fullgraph)
            print(f"  {label:<24} backend={backend:<8} fullgraph={fullgraph!s:<5} -> {result}")


print("\n== (2) raised while Dynamo traces bytecode (comptime)")


def tracing_raises(make):
    def check(ctx):
        raise make()

    def f(x):
        comptime(check)
        return x * 2

    return f


def boom_skip():
    error = BoomBreak("traced")
    error.skip_frame = True
    return error


for label, make in (("Boom", lambda: Boom("traced")), ("BoomBreak, skip_frame", boom_skip)):
    print(f"  {label:<24} -> {outcome(tracing_raises(make), torch.ones(2), backend='eager')}")


print("\n== (3) raised by a backend")
for label, make in (("Boom", lambda: Boom("backend")), ("BoomShort (ShortenTraceback)", lambda: BoomShort("b"))):

    def backend(gm, example_inputs, make=make):
        raise make()

    print(f"  {label:<28} -> {outcome(lambda x: x * 2, torch.ones(2), backend=backend)}")


print("\n== the guard, raise mode: violations found while Dynamo traces")
late = None


def guard_cases():
    @rg.allow_in_graph
    def ratio(x):
        return x.shape[0] / 8  # AIG202

    @rg.allow_in_graph
    def scale(x):
        return x * late  # AIG301: bound to a tensor after registration

    class Settings:
        k = 2.0

    @rg.allow_in_graph
    def scaled(x, settings):  # AIG101: Dynamo graph-breaks and traces the wrapper's frame
        return x * 2

    return {
        "AIG202 float result": lambda x: x * ratio(x + 0),
        "AIG301 captured tensor": lambda x: scale(x + 0) * 1,
        "AIG101 unproxyable arg": lambda x: scaled(x + 0, Settings()) * 1,
    }


rg.set_strict("raise")
for backend in ("eager", "inductor", "aigcheck"):
    for label in ("AIG202 float result", "AIG301 captured tensor", "AIG101 unproxyable arg"):
        for fullgraph in (False, True) if backend == "eager" else (False,):
            late = None
            fn = guard_cases()[label]
            late = torch.ones(2)
            torch._dynamo.reset()
            counters.clear()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    torch.compile(fn, backend=backend, fullgraph=fullgraph)(torch.ones(2))
                    result = "returns"
                except Exception as error:  # noqa: BLE001
                    code = getattr(error, "code", None)
                    result = f"{type(error).__module__}.{type(error).__qualname__} code={code}"
            print(f"  {label:<24} backend={backend:<8} fullgraph={fullgraph!s:<5} -> {result}")
rg.set_strict("off")
