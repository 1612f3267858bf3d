"""Does a registered callable instance work when it has a ``__name__``?

S§5 shows a registered callable instance failing with
``InternalTorchDynamoError: AttributeError: ... no attribute '__name__'``. This checks
whether giving the instance (or its class) a ``__name__`` is enough for Dynamo to put
the call in the graph, which decides when the static checker reports AIG403.
"""

import torch

from _harness import BACKENDS, compiled, header, node_summary, short


class Plain:
    def __call__(self, x):
        return x * 2 + 1


class NamedInInit:
    def __init__(self):
        self.__name__ = "named_in_init"

    def __call__(self, x):
        return x * 2 + 1


class NamedOnClass:
    __name__ = "named_on_class"

    def __call__(self, x):
        return x * 2 + 1


def main() -> None:
    header("callable instances with and without __name__")
    x = torch.arange(4.0)
    want = x * 2 + 1
    for cls in (Plain, NamedInInit, NamedOnClass):
        for backend in BACKENDS:
            op = torch.compiler.allow_in_graph(cls())

            def f(t, op=op):
                return op(t + 0) * 1

            cf, cnt = compiled(f, backend)
            try:
                out = cf(x)
                ok = "ok" if torch.equal(out, want) else f"WRONG {out.tolist()}"
                honoured = any(n.target is op for g in cnt.graphs for n in g.graph.nodes)
                print(f"[{cls.__name__}] backend={backend}: {ok}, honoured={honoured}, graphs={cnt.frame_count}")
                print(f"    NODES: {[node_summary(g) for g in cnt.graphs]}")
            except Exception as e:  # noqa: BLE001
                print(f"[{cls.__name__}] backend={backend}: RAISES {short(e, 2)}")


if __name__ == "__main__":
    main()
