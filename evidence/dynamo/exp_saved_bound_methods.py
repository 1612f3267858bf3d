"""Bound methods saved per instance: ``self._f = allow_in_graph(self.meth)`` in ``__init__``.

S§5 shows a saved bound method is honoured. A bound method is re-created for every
instance, like the closures of S§1c, so this checks whether a second instance,
compiled separately, gets its own ``self`` or the first instance's, and whether a
change to ``self.k`` after compiling is seen. The body reads only a Python float, so
nothing trips Dynamo's fake-tensor check.
"""

import torch

from _harness import BACKENDS, header, reset, short
from torch._dynamo.testing import CompileCounterWithBackend


class Scaled(torch.nn.Module):
    def __init__(self, k: float) -> None:
        super().__init__()
        self.k = k
        self._scale = torch.compiler.allow_in_graph(self.scale)

    def scale(self, x):
        return x * self.k

    def forward(self, x):
        return self._scale(x + 0) * 1


class Passed(torch.nn.Module):
    """Control: the same computation with k passed as an argument."""

    def __init__(self, k: float) -> None:
        super().__init__()
        self.k = k

    def forward(self, x):
        return _scale(x + 0, self.k) * 1


@torch.compiler.allow_in_graph
def _scale(x, k):
    return x * k


def main() -> None:
    header("bound methods saved per instance")
    x = torch.arange(4.0)
    for cls in (Scaled, Passed):
        for backend in BACKENDS:
            reset()
            cnt = CompileCounterWithBackend(backend)
            m2, m3 = cls(2.0), cls(3.0)
            c2, c3 = torch.compile(m2, backend=cnt), torch.compile(m3, backend=cnt)
            try:
                r2, r3 = c2(x), c3(x)
                first = "ok" if torch.equal(r3, x * 3) else f"STALE got {r3.tolist()} want {(x * 3).tolist()}"
                m2.k = 5.0
                r2b = c2(x)
                after = "ok" if torch.equal(r2b, x * 5) else f"STALE got {r2b.tolist()} want {(x * 5).tolist()}"
                targets = [str(n.target)[:60] for g in cnt.graphs for n in g.graph.nodes if n.op == "call_function"]
                print(f"[{cls.__name__}] backend={backend}: instance k=3 -> {first}; after m2.k=5 -> {after}; "
                      f"graphs={cnt.frame_count}")
                print(f"    NODES: {targets}")
            except Exception as e:  # noqa: BLE001
                print(f"[{cls.__name__}] backend={backend}: RAISES {short(e, 2)}")


if __name__ == "__main__":
    main()
