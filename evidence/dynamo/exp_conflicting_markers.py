"""D2: allow_in_graph combined with another Dynamo marker on the same function:
torch.compiler.disable (both orders), torch._dynamo.disallow_in_graph after
allow_in_graph (and allow_in_graph again after that), torch._dynamo.nonstrict_trace
(both orders), torch._dynamo.decorators.leaf_function (both orders, with
register_fake).  Which marker wins, does anything raise, what does the Dynamo
graph contain?

Every body computes x * 2 + 1 and increments a counter, so "body runs per call"
(3 compiled calls) tells whose semantics ran:
  allow_in_graph alone: eager [2, 1, 1], aot_eager/inductor [3, 0, 0]
  (FINDINGS sections S4/S7).  A second part puts a captured module-global
tensor W in the body: allow_in_graph alone raises at the first compiled call
(FINDINGS S1a), nonstrict_trace and leaf_function do not on eager/aot_eager
(FINDINGS S9), so it discriminates between them."""

import gc

import torch
from torch._dynamo.decorators import leaf_function, nonstrict_trace
from _harness import BACKENDS, header, short
from _probe import AIG, probe, registry_state, target_is

header("exp_conflicting_markers")

RUNS = [0]
W = torch.full((4,), 2.0)
# Every object built below is kept alive: disallow_in_graph adds an id with no
# finalizer, so a freed disallowed function leaves its id behind and a later
# object that reuses the id would inherit it (shown at the end of this script).
KEEP = []


def fake1(x):
    return (torch.empty_like(x),)


def builders(body_kind):
    """label -> (outer object called by f, inner raw function, f).  Built fresh per case."""

    def raw_fn():
        if body_kind == "plain":
            def g(x):
                return x * 2 + 1
        elif body_kind == "counter":
            def g(x):
                RUNS[0] += 1
                return x * 2 + 1
        else:
            def g(x):
                return x * W + 1
        return g

    def tuple_fn():  # leaf_function bodies must return a pytree matching the fake; use a 1-tuple
        if body_kind == "counter":
            def g(x):
                RUNS[0] += 1
                return (x * 2 + 1,)
        else:
            def g(x):
                return (x * W + 1,)
        return g

    def plain_aig():
        g = raw_fn()
        return AIG(g), g, None

    def disable_over_aig():
        g = raw_fn()
        return torch.compiler.disable(AIG(g)), g, None

    def aig_over_disable():
        g = raw_fn()
        return AIG(torch.compiler.disable(g)), g, None

    def aig_then_disallow():
        g = raw_fn()
        AIG(g)
        torch._dynamo.disallow_in_graph(g)
        return g, g, None

    def aig_disallow_aig():
        g = raw_fn()
        AIG(g)
        torch._dynamo.disallow_in_graph(g)
        AIG(g)
        return g, g, None

    def aig_over_nonstrict():
        g = raw_fn()
        return AIG(nonstrict_trace(g)), g, None

    def nonstrict_over_aig():
        g = raw_fn()
        return nonstrict_trace(AIG(g)), g, None

    def aig_over_leaf():
        g = tuple_fn()
        lf = AIG(leaf_function(g))
        lf.register_fake(fake1)
        return lf, g, "tuple"

    def leaf_over_aig():
        g = tuple_fn()
        lf = leaf_function(AIG(g))
        lf.register_fake(fake1)
        return lf, g, "tuple"

    def keep(build):
        def wrapped():
            res = build()
            KEEP.append(res)
            return res
        return wrapped

    return {label: keep(b) for label, b in {
        "control: @allow_in_graph alone": plain_aig,
        "@disable over @allow_in_graph": disable_over_aig,
        "@allow_in_graph over @disable": aig_over_disable,
        "allow_in_graph(g) then disallow_in_graph(g)": aig_then_disallow,
        "allow_in_graph, disallow_in_graph, allow_in_graph again": aig_disallow_aig,
        "@allow_in_graph over @nonstrict_trace": aig_over_nonstrict,
        "@nonstrict_trace over @allow_in_graph": nonstrict_over_aig,
        "@allow_in_graph over @leaf_function": aig_over_leaf,
        "@leaf_function over @allow_in_graph": leaf_over_aig,
    }.items()}


print("\n--- registration state of each stack (outer = the object f calls; inner = the raw def) ---")
for label, build in builders("counter").items():
    outer, inner, _ = build()
    print(f"[{label}] outer is inner={outer is inner}; outer={registry_state(outer)}; inner={registry_state(inner)}; "
          f"outer has _torchdynamo_disable={getattr(outer, '_torchdynamo_disable', False)}")


def never_allowed(x):
    return x * 2 + 1


try:
    torch._dynamo.disallow_in_graph(never_allowed)
    print("disallow_in_graph on a never-allowed function: accepted")
except Exception as e:  # noqa: BLE001
    print(f"disallow_in_graph on a never-allowed function: RAISES {short(e)}")

try:
    nonstrict_trace(leaf_function(lambda x: (x,)))
    print("nonstrict_trace over leaf_function: accepted")
except Exception as e:  # noqa: BLE001
    print(f"nonstrict_trace over leaf_function: RAISES {short(e)}")


print("\n--- part 1: body x * 2 + 1 with a call counter; 3 compiled calls ---")
for label, build in builders("counter").items():
    for backend in BACKENDS:
        outer, inner, kind = build()
        if kind == "tuple":
            f = lambda x, o=outer: o(x)[0] * 1  # noqa: E731
        else:
            f = lambda x, o=outer: o(x) * 1  # noqa: E731
        probe(label, f, target_is(outer, inner), backends=(backend,), calls=3, counter=RUNS)
    if label in ("@disable over @allow_in_graph", "allow_in_graph(g) then disallow_in_graph(g)"):
        outer, inner, kind = build()
        probe(label, lambda x, o=outer: o(x) * 1, target_is(outer, inner), backends=("eager",), fullgraph=True)
        outer, inner, kind = builders("plain")[label]()
        probe(label + " [no counter in body]", lambda x, o=outer: o(x) * 1, target_is(outer, inner),
              backends=("eager",), calls=3)

print("\n--- part 2: body x * W + 1 with W a module-global tensor (captured) ---")
for label, build in builders("captured").items():
    if "disallow" in label or label.startswith("@disable"):
        continue  # the body is not put in the graph there (see part 1)
    for backend in BACKENDS:
        outer, inner, kind = build()
        if kind == "tuple":
            f = lambda x, o=outer: o(x)[0] * 1  # noqa: E731
        else:
            f = lambda x, o=outer: o(x) * 1  # noqa: E731
        probe(label + " [captured W]", f, target_is(outer, inner), backends=(backend,), calls=1)

print("\n--- part 3: the id left behind by disallow_in_graph ---")


def make_plain():
    def g(x):
        return x * 2 + 1

    return g


dead = make_plain()
AIG(dead)
torch._dynamo.disallow_in_graph(dead)
dead_id = id(dead)
del dead
gc.collect()
print(f"freed function that was allowed then disallowed: its id still in _disallowed_callable_ids="
      f"{dead_id in torch._dynamo.trace_rules._disallowed_callable_ids}")
pool, reused = [], None
for i in range(2000):
    h = make_plain()  # never registered with anything
    if id(h) == dead_id:
        reused = h
        break
    pool.append(h)
if reused is None:
    print("no new function object received that id in 2000 allocations")
else:
    print(f"a new, never-registered function received that id after {i + 1} allocations; registry_state={registry_state(reused)}")
    probe("never-registered function that reused a disallowed id", lambda x: reused(x) * 1, None,
          backends=("eager",), calls=1)
