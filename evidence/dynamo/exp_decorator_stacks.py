"""D1: allow_in_graph stacked with @staticmethod, @classmethod, @property, and
applied to a plain method in a class body.  For each stack: does the class
body even run (allow_in_graph raises on some descriptor objects), which object
ends up registered, and is a call from a compiled f(x) honoured (the Dynamo
graph calls the registered function) or ignored (the body is traced)?

The registered function computes x * 2 + 1 unless noted.  f(x) = <call> * 1
so that every compiled frame has at least one op of its own."""

import gc
import sys

import torch
from _harness import header, short
from _probe import AIG, probe, registry_state, target_is

header("exp_decorator_stacks")
print(f"callable(staticmethod(f))={callable(staticmethod(lambda x: x))}  "
      f"callable(classmethod(f))={callable(classmethod(lambda c, x: x))}  "
      f"callable(property(f))={callable(property(lambda s: s))}  (python {sys.version.split()[0]})")

# D1.1 @staticmethod above @allow_in_graph ------------------------------------------------
print("\n--- D1.1 @staticmethod over @allow_in_graph ---")


class S1:
    @staticmethod
    @AIG
    def meth(x):
        return x * 2 + 1


s1 = S1()
raw1 = S1.__dict__["meth"].__func__
print(f"registered: staticmethod object={registry_state(S1.__dict__['meth'])}, underlying function={registry_state(raw1)}; "
      f"S1.meth is raw={S1.meth is raw1}; s1.meth is raw={s1.meth is raw1}")
probe("D1.1 staticmethod>aig, C.meth(x)", lambda x: S1.meth(x) * 1, target_is(raw1))
probe("D1.1 staticmethod>aig, c.meth(x)", lambda x: s1.meth(x) * 1, target_is(raw1))

# D1.2 @allow_in_graph above @staticmethod ------------------------------------------------
print("\n--- D1.2 @allow_in_graph over @staticmethod ---")
try:
    class S2:
        @AIG
        @staticmethod
        def meth(x):
            return x * 2 + 1

    print("class S2 defined without error")
except Exception as e:  # noqa: BLE001
    print(f"class S2 body RAISES {short(e)}")


def _raw2(x):
    return x * 2 + 1


sm = staticmethod(_raw2)
try:
    AIG(sm)
    print("allow_in_graph(staticmethod object): accepted")
except Exception as e:  # noqa: BLE001
    print(f"allow_in_graph(staticmethod object): RAISES {short(e)}")
print(f"  after the exception: staticmethod object={registry_state(sm)} (id added before weakref.finalize failed), "
      f"underlying function={registry_state(_raw2)}")


class S2b:  # the same staticmethod object, put in a class by hand after the failed registration
    meth = sm


s2b = S2b()
probe("D1.2 staticmethod object whose registration raised, C.meth(x)", lambda x: S2b.meth(x) * 1, target_is(sm, _raw2))
probe("D1.2 staticmethod object whose registration raised, c.meth(x)", lambda x: s2b.meth(x) * 1, target_is(sm, _raw2),
      backends=("eager",))

# the id of the failed registration is never removed (no finalizer was attached)
sm_id = id(sm)
del S2b, s2b, sm
gc.collect()
print(f"  after the staticmethod object is freed: its id still in _allowed_callable_ids="
      f"{sm_id in torch._dynamo.trace_rules._allowed_callable_ids}")
hit = None
keep = []
for i in range(2000):
    obj = staticmethod(lambda x: x) if i % 2 else (lambda x: x)
    if id(obj) == sm_id:
        hit = obj
        break
    keep.append(obj)
if hit is None:
    print("  id reuse: no staticmethod or function object received that id in 2000 allocations")
else:
    print(f"  id reuse: a new unregistered {type(hit).__name__} received that id; registry_state={registry_state(hit)}")
del keep, hit

# D1.3 classmethod ------------------------------------------------------------------------
print("\n--- D1.3 @classmethod over @allow_in_graph, and @allow_in_graph over @classmethod ---")


class K1:
    @classmethod
    @AIG
    def meth(cls, x):
        return x * 2 + 1


k1 = K1()
raw3 = K1.__dict__["meth"].__func__
print(f"registered: underlying function={registry_state(raw3)}; K1.meth is K1.meth={K1.meth is K1.meth} "
      f"(a new bound method each access); K1.meth.__func__ is raw={K1.meth.__func__ is raw3}")
probe("D1.3 classmethod>aig, C.meth(x)", lambda x: K1.meth(x) * 1, target_is(raw3))
probe("D1.3 classmethod>aig, c.meth(x)", lambda x: k1.meth(x) * 1, target_is(raw3))
try:
    class K2:
        @AIG
        @classmethod
        def meth(cls, x):
            return x * 2 + 1

    print("class K2 defined without error")
except Exception as e:  # noqa: BLE001
    print(f"aig>classmethod: class K2 body RAISES {short(e)}")

# D1.4 property ----------------------------------------------------------------------------
print("\n--- D1.4 @property over @allow_in_graph, and @allow_in_graph over @property ---")


class P1:
    def __init__(self):
        self.w = torch.full((4,), 2.0)

    @property
    @AIG
    def val(self):  # reads a tensor attribute
        return self.w * 2 + 1

    @property
    @AIG
    def const(self):  # reads no tensor
        return torch.ones(4) * 3

    @property
    def val_plain(self):  # control: not registered
        return self.w * 2 + 1


p1 = P1()
print(f"registered: val.fget={registry_state(P1.val.fget)}, const.fget={registry_state(P1.const.fget)}")
probe("D1.4 property>aig getter reads self.w, x * c.val", lambda x: x * p1.val, target_is(P1.val.fget))
probe("D1.4 property>aig getter reads self.w, x * c.val", lambda x: x * p1.val, target_is(P1.val.fget),
      backends=("eager",), fullgraph=True)
probe("D1.4 property>aig getter returns torch.ones(4)*3, x * c.const", lambda x: x * p1.const, target_is(P1.const.fget))
probe("D1.4 property>aig getter returns torch.ones(4)*3, x * c.const", lambda x: x * p1.const, target_is(P1.const.fget),
      backends=("eager",), fullgraph=True)
probe("D1.4 control: property without aig, x * c.val_plain", lambda x: x * p1.val_plain, target_is(P1.val_plain.fget))
try:
    class P2:
        @AIG
        @property
        def val(self):
            return torch.ones(4)

    print("class P2 defined without error")
except Exception as e:  # noqa: BLE001
    print(f"aig>property: class P2 body RAISES {short(e)}")

# D1.5 plain method decorated in the class body ------------------------------------------
print("\n--- D1.5 @allow_in_graph on a plain method in the class body ---")


class M1:
    @AIG
    def meth(self, x):
        return x * 2 + 1


m1 = M1()
print(f"registered: M1.meth (function)={registry_state(M1.meth)}; bound m1.meth={registry_state(m1.meth)}; "
      f"m1.meth is m1.meth={m1.meth is m1.meth}")
probe("D1.5 method in class body, c.meth(x)", lambda x: m1.meth(x) * 1, target_is(M1.meth))
probe("D1.5 method in class body, C.meth(c, x)", lambda x: M1.meth(m1, x) * 1, target_is(M1.meth))
probe("D1.5 method in class body, C.meth(c, x)", lambda x: M1.meth(m1, x) * 1, target_is(M1.meth),
      backends=("eager",), fullgraph=True)
