"""An nn.Module subclass registered with allow_in_graph (diffusers' maybe_allow_in_graph
on transformer blocks): is the block's forward put in the graph as one call, or traced?

Checks a compiled parent that owns an instance of the registered class, and a compiled
function that constructs one. The body is ``x * 2 + 1``: if the call were honoured, the
graph would hold one call_function node for it instead of mul and add.
"""

import torch

from _harness import BACKENDS, compiled, header, node_summary, short


@torch.compiler.allow_in_graph
class Block(torch.nn.Module):
    def forward(self, x):
        return x * 2 + 1


class Parent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x + 0) * 1


def main() -> None:
    header("nn.Module subclass registered with allow_in_graph")
    x = torch.arange(4.0)
    for backend in BACKENDS:
        parent = Parent()
        cf, cnt = compiled(parent, backend)
        try:
            out = cf(x)
            ok = "ok" if torch.equal(out, x * 2 + 1) else f"WRONG {out.tolist()}"
            nodes = [node_summary(g) for g in cnt.graphs]
            honoured = any("Block" in n for graph in nodes for n in graph)
            print(f"[instance in compiled parent] backend={backend}: {ok}, forward honoured={honoured}, "
                  f"graphs={cnt.frame_count}")
            print(f"    NODES: {nodes}")
        except Exception as e:  # noqa: BLE001
            print(f"[instance in compiled parent] backend={backend}: RAISES {short(e, 2)}")


if __name__ == "__main__":
    main()
