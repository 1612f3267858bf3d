"""Instances of user classes as arguments of a registered function.

The contract (checker/spec/contract.py) has frozen dataclasses, NamedTuples and Enums work while plain
classes and non-frozen dataclasses graph-break; S§2 measured only the latter. This
checks each kind, which decides AIG101/AIG104 (graph break) against AIG105 (works but
undocumented).
"""

import dataclasses
import enum
from typing import NamedTuple

import torch

from _harness import BACKENDS, compiled, gb_summary, header, short


@dataclasses.dataclass(frozen=True)
class Frozen:
    k: float


@dataclasses.dataclass
class Mutable:
    k: float


class Pair(NamedTuple):
    k: float
    n: int


class Mode(enum.Enum):
    DOUBLE = 2.0


class Plain:
    def __init__(self, k):
        self.k = k


def scale_of(v):
    if isinstance(v, Mode):
        return v.value
    return v.k


@torch.compiler.allow_in_graph
def g(x, v):
    return x * scale_of(v)


CASES = {
    "frozen dataclass": lambda: Frozen(2.0),
    "NamedTuple": lambda: Pair(2.0, 1),
    "Enum member": lambda: Mode.DOUBLE,
    "non-frozen dataclass": lambda: Mutable(2.0),
    "plain class": lambda: Plain(2.0),
}


def main() -> None:
    header("user class instances as arguments")
    x = torch.arange(4.0)
    for case, make in CASES.items():
        for backend in BACKENDS:
            v = make()

            def f(x, v=v):
                return g(x + 0, v) * 1

            cf, cnt = compiled(f, backend)
            try:
                out = cf(x)
                ok = "ok" if torch.equal(out, x * 2) else f"WRONG {out.tolist()}"
                honoured = any(n.target is g for gm in cnt.graphs for n in gm.graph.nodes)
                n_gb, reasons = gb_summary()
                print(f"[{case}] backend={backend}: {ok}, honoured={honoured}, graphs={cnt.frame_count}, "
                      f"graph_breaks={n_gb}")
                for reason in reasons[:1]:
                    print(f"    GB: {reason[:200]}")
            except Exception as e:  # noqa: BLE001
                print(f"[{case}] backend={backend}: RAISES {short(e, 2)}")


if __name__ == "__main__":
    main()
