"""D12-D15: what the runtime guard relies on, measured on the installed torch.

D12  a call-form allow_in_graph(f) whose result is discarded: is f honoured, with torch's
     registration and with a guard that registers only a wrapper; re-allowing torch.sub
     after disallow_in_graph.
D13  torch.compiler.is_compiling() / is_dynamo_compiling() / TracingContext in a thread that
     does not compile, while another thread compiles.
D14  what a TorchFunctionMode entered around a call sees inside torch.vmap and
     torch.func.grad: the per-sample tensors are functorch wrappers of the arguments.
D15  a registered kernel reading a module attribute rebound by a setter of its module
     (config.LOSS_SCALE), under eager, aot_eager and inductor.

Run: python evidence/dynamo/exp_guard_semantics.py (writes nothing; run_all.sh stores the output).
"""

from __future__ import annotations

import os
import sys
import threading
import types

os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")

import torch  # noqa: E402
import torch._guards  # noqa: E402
from torch._dynamo.testing import CompileCounterWithBackend  # noqa: E402
from torch.overrides import TorchFunctionMode  # noqa: E402

print(f"torch {torch.__version__}")


def targets(counter: CompileCounterWithBackend) -> list[list[str]]:
    return [[getattr(n.target, "__name__", str(n.target)) for n in g.graph.nodes if n.op == "call_function"] for g in counter.graphs]


# -- D12 ---------------------------------------------------------------------------------------


def d11() -> None:
    print("\n== D12 call form, and re-allowing after disallow_in_graph")

    def double(x):
        return x * 2

    for variant in ("torch registers f", "a guard registers only a wrapper"):
        torch._dynamo.reset()
        if variant == "torch registers f":
            torch._dynamo.allow_in_graph(double)
        else:
            wrapper = types.FunctionType(double.__code__, double.__globals__, "double")
            torch._dynamo.allow_in_graph(wrapper)  # what the old guard did: f itself stays unregistered
            del wrapper
        counter = CompileCounterWithBackend("eager")
        torch.compile(lambda x: double(x + 1) - 1, backend=counter)(torch.ones(2))
        print(f"  {variant}: graphs={counter.frame_count} nodes={targets(counter)}")
        torch._dynamo.trace_rules._allowed_callable_ids.remove(id(double))

    torch._dynamo.reset()
    counter = CompileCounterWithBackend("eager")
    torch._dynamo.disallow_in_graph(torch.sub)
    torch._dynamo.allow_in_graph(torch.sub)
    torch.compile(lambda a: torch.sub(torch.add(a, 1), 1), backend=counter)(torch.ones(2))
    print(f"  disallow_in_graph(torch.sub), allow_in_graph(torch.sub): graphs={counter.frame_count} nodes={targets(counter)}")


# -- D13 ---------------------------------------------------------------------------------------


def d12() -> None:
    print("\n== D13 flags seen by another thread while one thread compiles")
    started, done = threading.Event(), threading.Event()
    inside: dict[str, object] = {}

    def slow_backend(gm, example_inputs):
        inside["compiling thread: is_compiling"] = torch.compiler.is_compiling()
        inside["compiling thread: TracingContext"] = torch._guards.TracingContext.try_get() is not None
        started.set()
        done.wait(30)
        return gm.forward

    worker = threading.Thread(target=lambda: torch.compile(lambda x: x + 1, backend=slow_backend)(torch.ones(2)))
    worker.start()
    started.wait(60)
    seen = {
        "other thread: is_compiling": torch.compiler.is_compiling(),
        "other thread: is_dynamo_compiling": torch.compiler.is_dynamo_compiling(),
        "other thread: TracingContext": torch._guards.TracingContext.try_get() is not None,
    }
    done.set()
    worker.join()
    for key, value in {**inside, **seen}.items():
        print(f"  {key}: {value}")


# -- D14 ---------------------------------------------------------------------------------------


class Seen(TorchFunctionMode):
    def __init__(self, argument: torch.Tensor) -> None:
        super().__init__()
        self.argument = argument
        self.rows: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        functorch = torch._C._functorch
        for a in args:
            if isinstance(a, torch.Tensor) and a is not self.argument:
                layers, t = [], a
                while functorch.is_functorch_wrapped_tensor(t):
                    t = functorch.get_unwrapped(t)
                    layers.append(t is self.argument)
                kind = "batched" if functorch.is_batchedtensor(a) else "grad-tracking" if functorch.is_gradtrackingtensor(a) else "plain"
                self.rows.append(f"{getattr(func, '__name__', func)}: {kind}, unwrapped layers are the argument: {layers}")
        return func(*args, **(kwargs or {}))


def d13() -> None:
    print("\n== D14 tensors a TorchFunctionMode sees inside vmap and grad")
    x = torch.randn(2, 3)
    for name, body in (
        ("vmap(lambda row: row * 2)", lambda t: torch.vmap(lambda row: row * 2)(t)),
        ("func.grad(lambda t: (t * t).sum())", lambda t: torch.func.grad(lambda u: (u * u).sum())(t)),
    ):
        mode = Seen(x)
        with mode:
            body(x)
        print(f"  {name}:")
        for row in dict.fromkeys(mode.rows):
            print(f"    {row}")


# -- D15 ---------------------------------------------------------------------------------------


def d14() -> None:
    print("\n== D15 a module attribute rebound by a setter of its module")
    config = types.ModuleType("config")
    exec("LOSS_SCALE = 2.0\ndef set_loss_scale(v):\n    global LOSS_SCALE\n    LOSS_SCALE = v\n", vars(config))
    sys.modules["config"] = config

    def kernel(x):
        return x * config.LOSS_SCALE

    torch.compiler.allow_in_graph(kernel)
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        config.set_loss_scale(2.0)
        fn = torch.compile(lambda x: kernel(x + 0) * 1, backend=backend)
        first = fn(torch.ones(2)).tolist()
        config.set_loss_scale(3.0)
        second = fn(torch.ones(2)).tolist()
        verdict = "ok (live)" if second == [3.0, 3.0] else "STALE"
        print(f"  {backend}: LOSS_SCALE=2.0 -> {first}; after set_loss_scale(3.0) -> {second}: {verdict}")


if __name__ == "__main__":
    d11()
    d12()
    d13()
    d14()
