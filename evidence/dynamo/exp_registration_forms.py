"""Registration forms and targets that S§5 does not cover (issue 22, class 10).

1. What ``allow_in_graph`` does with collections other than a list display or a tuple:
   ``d.values()``, a generator, a set, ``list(...)``, ``tuple(...)`` (raises, or registers
   each element?).
2. A ``torch.library.custom_op`` object registered (call form, and the decorators stacked
   with ``@allow_in_graph`` above): accepted? Called in a compiled function, does it work,
   and is the call one node? (Control: the same custom op, not registered.)
3. A registered helper that receives the autograd ``ctx`` of an ``autograd.Function``'s
   ``forward`` and never touches it (D8's helpers use it): does it still fail? (Controls:
   the registered helper without the ctx; an unregistered helper given the ctx.)
"""

import torch

from _harness import BACKENDS, compiled, gb_summary, header, node_summary, short


def registered(fn) -> bool:
    from torch._dynamo import trace_rules

    return id(fn) in trace_rules._allowed_callable_ids


def fresh():
    """Two new functions, registered by no earlier case."""

    def fa(x):
        return x * 2 + 1

    def fb(x):
        return x - 1

    return fa, fb


def collections() -> None:
    header("1. collections other than a list display or a tuple")
    cases = {
        "dict.values()": lambda fa, fb: {"a": fa, "b": fb}.values(),
        "dict.keys()": lambda fa, fb: {"a": fa, "b": fb}.keys(),
        "generator": lambda fa, fb: (f for f in [fa, fb]),
        "set": lambda fa, fb: {fa, fb},
        "frozenset": lambda fa, fb: frozenset([fa, fb]),
        "map(...)": lambda fa, fb: map(lambda f: f, [fa, fb]),
        "list([fa, fb])": lambda fa, fb: list([fa, fb]),
        "list(dict.values())": lambda fa, fb: list({"a": fa, "b": fb}.values()),
        "list(dict)": lambda fa, fb: list({"a": fa, "b": fb}),
        "tuple([fa, fb])": lambda fa, fb: tuple([fa, fb]),
        "sorted(dict)": lambda fa, fb: sorted({"a": fa, "b": fb}),
    }
    for label, make in cases.items():
        fa, fb = fresh()
        value = make(fa, fb)
        try:
            result = torch.compiler.allow_in_graph(value)
            print(
                f"[{label}] returns {type(result).__name__} of {len(result)}; "
                f"fa registered={registered(fa)}, fb registered={registered(fb)}"
            )
        except Exception as e:  # noqa: BLE001
            print(f"[{label}] RAISES {short(e, 1)}; fa registered={registered(fa)}")


@torch.library.custom_op("aigexp::unregistered", mutates_args=())
def unregistered(x: torch.Tensor) -> torch.Tensor:
    return x * 2 + 1


@unregistered.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("aigexp::scaled", mutates_args=())
def scaled(x: torch.Tensor) -> torch.Tensor:
    return x * 2 + 1


@scaled.register_fake
def _(x):
    return torch.empty_like(x)


def stacked_decorators():
    try:

        @torch.compiler.allow_in_graph
        @torch.library.custom_op("aigexp::stacked", mutates_args=())
        def stacked(x: torch.Tensor) -> torch.Tensor:
            return x * 2 + 1

        @stacked.register_fake
        def _(x):
            return torch.empty_like(x)

        return stacked, None
    except Exception as e:  # noqa: BLE001
        return None, e


def custom_ops() -> None:
    header("2. a torch.library.custom_op object registered")
    print(f"type={type(scaled).__name__}, callable={callable(scaled)}, has __name__={hasattr(scaled, '__name__')}")
    try:
        torch.compiler.allow_in_graph(scaled)
        print(f"[call form] accepted, registered={registered(scaled)}")
    except Exception as e:  # noqa: BLE001
        print(f"[call form] RAISES {short(e, 1)}")
    stacked, error = stacked_decorators()
    if error is not None:
        print(f"[stacked] RAISES {short(error, 1)}")
    else:
        print(f"[stacked] accepted, registered={registered(stacked)}")
    x = torch.arange(4.0)
    want = x * 2 + 1
    for label, op in (("control: not registered", unregistered), ("call form", scaled), ("stacked", stacked)):
        if op is None:
            continue
        for backend in BACKENDS:

            def f(t, op=op):
                return op(t + 0) * 1

            cf, cnt = compiled(f, backend)
            try:
                out = cf(x)
                ok = "ok" if torch.equal(out, want * 1) else f"WRONG {out.tolist()}"
                n_gb, _ = gb_summary()
                print(f"[{label}] backend={backend}: {ok}, graphs={cnt.frame_count}, graph_breaks={n_gb}")
                print(f"    NODES: {[node_summary(g) for g in cnt.graphs]}")
            except Exception as e:  # noqa: BLE001
                print(f"[{label}] backend={backend}: RAISES {short(e, 2)}")


@torch.compiler.allow_in_graph
def scale_with_unused_ctx(ctx, x, w):
    return x * w


@torch.compiler.allow_in_graph
def scale_without_ctx(x, w):
    return x * w


def scale_unregistered(ctx, x, w):
    return x * w


def autograd_function(helper, passes_ctx: bool):
    """An autograd.Function whose forward saves ``w`` itself and calls ``helper``."""

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(w)
            return helper(ctx, x, w) if passes_ctx else helper(x, w)

        @staticmethod
        def backward(ctx, grad):
            (w,) = ctx.saved_tensors
            return grad * w, None

    return Scale


def ctx_received() -> None:
    header("3. a registered helper that receives ctx and does not use it (and two controls)")
    cases = {
        "registered, receives ctx, unused": autograd_function(scale_with_unused_ctx, True),
        "control: registered, no ctx": autograd_function(scale_without_ctx, False),
        "control: unregistered, receives ctx": autograd_function(scale_unregistered, True),
    }
    for label, scale in cases.items():
        for backend in BACKENDS:
            x = torch.arange(4.0, requires_grad=True)
            w = torch.full((4,), 3.0)

            def f(x, w, scale=scale):
                return scale.apply(x + 0, w) * 1

            cf, cnt = compiled(f, backend)
            try:
                out = cf(x, w)
                out.sum().backward()
                ok = torch.equal(out.detach(), torch.arange(4.0) * 3) and torch.equal(x.grad, torch.full((4,), 3.0))
                n_gb, reasons = gb_summary()
                print(
                    f"[{label}] backend={backend}: {'ok' if ok else 'WRONG'}, graphs={cnt.frame_count}, "
                    f"graph_breaks={n_gb}"
                )
                for reason in reasons:
                    print(f"    GB: {reason[:300]}")
            except Exception as e:  # noqa: BLE001
                print(f"[{label}] backend={backend}: RAISES {short(e, 3)}")


def main() -> None:
    collections()
    custom_ops()
    ctx_received()


if __name__ == "__main__":
    main()
