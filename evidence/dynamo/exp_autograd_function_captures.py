"""D3: an autograd.Function subclass decorated with @allow_in_graph whose
forward (or backward) reads module-global state instead of its arguments:
  A. forward uses a global tensor W (does it raise like FINDINGS S1a?)
  B. forward and backward use a global Python float K, rebound between calls (stale?)
  C. only backward uses the global tensor W, mutated in place between calls
  D. only backward uses the global float K, rebound between calls
Each case is also run with the same class NOT registered (control: Dynamo then
traces the autograd.Function itself).

f(x) = Fn.apply(x) * 1.  x requires grad; each call also runs backward and
compares x.grad with the uncompiled f.  "honoured" = the Dynamo graph has the
trampoline_autograd_apply node over the class (_probe.autograd_target)."""

import torch
from _harness import BACKENDS, capture, compiled, gb_summary, header, short
from _probe import AIG, autograd_target, frame_log, honoured, print_diag

header("exp_autograd_function_captures")

W = torch.full((4,), 2.0)
K = 2.0


def make_classes(register):
    deco = AIG if register else (lambda c: c)

    @deco
    class FwdW(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * W + 1

        @staticmethod
        def backward(ctx, g):
            return g * W

    @deco
    class FwdK(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * K + 1

        @staticmethod
        def backward(ctx, g):
            return g * K

    @deco
    class BwdW(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2 + 1

        @staticmethod
        def backward(ctx, g):
            return g * W

    @deco
    class BwdK(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2 + 1

        @staticmethod
        def backward(ctx, g):
            return g * K

    return {"A forward reads global tensor W": (FwdW, "W.add_(1)"),
            "B forward+backward read global float K": (FwdK, "K = 3.0"),
            "C only backward reads global tensor W": (BwdW, "W.add_(1)"),
            "D only backward reads global float K": (BwdK, "K = 3.0")}


def change(what):
    global K
    if what == "W.add_(1)":
        W.add_(1)
    else:
        K = 3.0


def reset_state():
    global K
    W.fill_(2.0)
    K = 2.0


def one_call(fn):
    x = torch.arange(4.0, requires_grad=True)
    out = fn(x)
    out.sum().backward()
    return out.detach(), x.grad.clone()


def verdict(got, want):
    (o, g), (eo, eg) = got, want
    fo = "fwd ok" if torch.allclose(o, eo) else f"fwd STALE got {o.tolist()} want {eo.tolist()}"
    fg = "grad ok" if torch.allclose(g, eg) else f"grad STALE got {g.tolist()} want {eg.tolist()}"
    return f"{fo}, {fg}"


for register in (True, False):
    tag = "allow_in_graph" if register else "control: not registered"
    print(f"\n--- {tag} ---")
    for label, (cls, what) in make_classes(register).items():
        for backend in BACKENDS:
            reset_state()

            def f(x, cls=cls):
                return cls.apply(x) * 1

            cf, cnt = compiled(f, backend)
            with capture() as box, frame_log() as flog:
                try:
                    r1 = verdict(one_call(cf), one_call(f))
                    change(what)
                    r2 = verdict(one_call(cf), one_call(f))
                    res = f"call1: {r1}; after {what}: {r2}"
                except Exception as e:  # noqa: BLE001
                    res = "RAISES " + short(e, 3)
            n_gb, _ = gb_summary()
            print(f"[{label}] {tag} backend={backend}: {res}; graphs={cnt.frame_count} graph_breaks={n_gb} "
                  f"honoured={'yes' if honoured(cnt, autograd_target(cls)) else 'no'}")
            print_diag(cnt, box, flog)
