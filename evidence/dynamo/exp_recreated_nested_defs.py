"""D4 and D5: registered nested defs / lambdas that are re-created, where what
differs between the copies is NOT a closure cell.

D4: a factory make() returns a fresh registered nested def; the module global G
    is rebound to the second copy between compiled calls of f(x) = G(x) * 1.
    a. no free variables, no defaults: both copies compute x * 2 + 1
    b. positional default  def g(x, k=k)   (make(2.0), then make(3.0))
    c. keyword-only default def g(x, *, k=k)
    d. reference: closure cell (free variable k), as in FINDINGS S1c
D5: nn.Module whose __init__ does self.fn = allow_in_graph(lambda x: x * self.k),
    self.k a Python float; two instances (k=2.0, k=3.0), each torch.compile'd.
    Then instance 1's self.k is changed to 5.0.  Control: the same module
    without allow_in_graph.

Dynamo guards a registered function by its __code__ only (FINDINGS S0.4);
these cases show what that means when closure/defaults/self differ."""

import weakref

import torch
from torch._dynamo.testing import CompileCounterWithBackend
from _harness import BACKENDS, capture, compiled, header, reset, short
from _probe import AIG, describe, frame_log, print_diag

header("exp_recreated_nested_defs")


def make_nofree():
    @AIG
    def g(x):
        return x * 2 + 1

    return g


def make_default(k):
    @AIG
    def g(x, k=k):
        return x * k + 1

    return g


def make_kwdefault(k):
    @AIG
    def g(x, *, k=k):
        return x * k + 1

    return g


def make_closure(k):
    @AIG
    def g(x):
        return x * k + 1

    return g


CASES = {
    "D4a no free variables, no defaults": (make_nofree, make_nofree),
    "D4b positional default k=k": (lambda: make_default(2.0), lambda: make_default(3.0)),
    "D4c keyword-only default k=k": (lambda: make_kwdefault(2.0), lambda: make_kwdefault(3.0)),
    "D4d reference: closure cell k": (lambda: make_closure(2.0), lambda: make_closure(3.0)),
}

print("\n--- D4: module global rebound to a second copy from the same factory ---")
for label, (first, second) in CASES.items():
    for backend in BACKENDS:
        G = first()
        first_ref = weakref.ref(G)

        def f(x):
            return G(x) * 1

        cf, cnt = compiled(f, backend)
        x = torch.arange(4.0)
        with capture() as box, frame_log() as flog:
            try:
                o1 = cf(x)
                r1 = "ok" if torch.allclose(o1, f(x)) else f"WRONG got {o1.tolist()}"
                G = second()
                o2 = cf(x)
                e2 = f(x)
                r2 = "ok" if torch.allclose(o2, e2) else f"STALE got {o2.tolist()} want {e2.tolist()}"
                res = f"call1 {r1}; after G = second copy: {r2}"
            except Exception as e:  # noqa: BLE001
                res = "RAISES " + short(e, 3)
        same_code = G.__code__ is first_ref().__code__ if first_ref() is not None else "first copy freed"
        tgt = [n.target for gm in cnt.graphs for n in gm.graph.nodes if n.op == "call_function" and n.target in (first_ref(), G)]
        who = ["first copy" if t is first_ref() else "second copy" for t in tgt]
        print(f"[{label}] backend={backend}: {res}; graphs={cnt.frame_count}; same __code__={same_code}; "
              f"second copy: closure={G.__closure__ is not None} defaults={G.__defaults__} kwdefaults={G.__kwdefaults__}; "
              f"graph node target(s)={who}")
        print_diag(cnt, box, flog)
del G


print("\n--- D5: lambda registered in nn.Module.__init__, reading self.k ---")


class LamModule(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.fn = AIG(lambda x: x * self.k)

    def forward(self, x):
        return self.fn(x) + 1


class LamModulePlain(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.fn = lambda x: x * self.k

    def forward(self, x):
        return self.fn(x) + 1


for cls in (LamModule, LamModulePlain):
    for backend in BACKENDS:
        reset()
        cnt = CompileCounterWithBackend(backend)
        m1, m2 = cls(2.0), cls(3.0)
        c1 = torch.compile(m1, backend=cnt)
        c2 = torch.compile(m2, backend=cnt)
        x = torch.arange(4.0)
        with capture() as box, frame_log() as flog:
            try:
                o1, o2 = c1(x), c2(x)
                r1 = "ok" if torch.allclose(o1, m1(x)) else f"WRONG got {o1.tolist()}"
                r2 = "ok" if torch.allclose(o2, m2(x)) else f"WRONG got {o2.tolist()} want {m2(x).tolist()}"
                m1.k = 5.0
                o3 = c1(x)
                r3 = "ok" if torch.allclose(o3, m1(x)) else f"STALE got {o3.tolist()} want {m1(x).tolist()}"
                res = f"instance1(k=2) {r1}; instance2(k=3) {r2}; instance1 after self.k = 5.0: {r3}"
            except Exception as e:  # noqa: BLE001
                res = "RAISES " + short(e, 3)
        tgts = [n.target for gm in cnt.graphs for n in gm.graph.nodes if n.op == "call_function" and n.target in (m1.fn, m2.fn)]
        who = ["instance1.fn" if t is m1.fn else "instance2.fn" for t in tgts]
        print(f"[D5 {cls.__name__}] backend={backend}: {res}; graphs={cnt.frame_count}; "
              f"m1.fn.__code__ is m2.fn.__code__={m1.fn.__code__ is m2.fn.__code__}; graph node target(s)={who}")
        print_diag(cnt, box, flog)
