"""Classes registered with allow_in_graph and constructed inside a compiled function, and
a bare tensor subclass passed in as an argument.

A registered class is a registered callable: constructing it in a compiled f(x) puts
the constructor call in the graph, and what it returns must then be Proxy-able.
Each class is constructed from x inside f(x) = use(Cls(x * 2)) + 1, registered and
(as a control) unregistered, under eager / aot_eager / inductor, fullgraph False
(graph breaks counted) and True (the error text). Then a registered g(t) = t * 2
called with a bare subclass instance made outside (an argument), and one that
returns its argument's .as_subclass(Bare). Run on torch 2.13.0 and 2.14.1 (CPU).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import torch
from torch.utils._pytree import tree_map

from _harness import BACKENDS, compiled, gb_summary, same, short

aig = torch.compiler.allow_in_graph


class Plain:
    def __init__(self, x):
        self.x = x


@dataclasses.dataclass
class Data:
    x: torch.Tensor


@dataclasses.dataclass(frozen=True)
class Frozen:
    x: torch.Tensor


class Pair(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor


class Bare(torch.Tensor):
    pass


class Traceable(torch.Tensor):
    @staticmethod
    def __new__(cls, data):
        return torch.Tensor._make_wrapper_subclass(cls, data.shape, dtype=data.dtype)

    def __init__(self, data):
        self.data_ = data

    def __tensor_flatten__(self):
        return ["data_"], None

    @staticmethod
    def __tensor_unflatten__(inner, meta, outer_size, outer_stride):
        return Traceable(inner["data_"])

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        unwrap = lambda t: t.data_ if isinstance(t, Traceable) else t  # noqa: E731
        return func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))


# (label, class, how to build from a tensor, how to read a tensor back)
CLASSES = [
    ("plain class", Plain, lambda c, t: c(t), lambda o: o.x),
    ("dataclass", Data, lambda c, t: c(t), lambda o: o.x),
    ("frozen dataclass", Frozen, lambda c, t: c(t), lambda o: o.x),
    ("NamedTuple", Pair, lambda c, t: c(t, t), lambda o: o.x + o.y),
    ("bare Tensor subclass", Bare, lambda c, t: c(t), lambda o: o),
    ("traceable Tensor subclass", Traceable, lambda c, t: c(t), lambda o: o),
]


def construct(label, cls, build, read, registered: bool) -> None:
    if registered:
        aig(cls)

    def f(x):
        return read(build(cls, x * 2)) + 1

    expected = None
    try:
        expected = f(torch.ones(3))
    except Exception as e:  # noqa: BLE001
        expected = f"eager call RAISES {short(e, 1)}"
    tag = "registered" if registered else "unregistered"
    for backend in BACKENDS:
        for fullgraph in (False, True):
            cf, cnt = compiled(f, backend, fullgraph=fullgraph)
            try:
                out = cf(torch.ones(3))
                ok = "ok" if same(out, expected) else f"WRONG {out!r:.60}"
                breaks, reasons = gb_summary()
                why = f" | {reasons[0][:160]}" if reasons else ""
                print(f"construct | {label:26s} | {tag:12s} | {backend:9s} | fullgraph={fullgraph!s:5s} | {ok}, "
                      f"graphs={cnt.frame_count}, GB={breaks}{why}")
            except Exception as e:  # noqa: BLE001
                print(f"construct | {label:26s} | {tag:12s} | {backend:9s} | fullgraph={fullgraph!s:5s} | "
                      f"RAISES {short(e, 2)[:260]}")


@aig
def takes(t):
    return t * 2


@aig
def makes_bare(t):
    return t.as_subclass(Bare)


def argument() -> None:
    for label, g, make in (
        ("bare subclass argument", takes, lambda: torch.ones(3).as_subclass(Bare)),
        ("bare subclass made from the argument", makes_bare, lambda: torch.ones(3)),
    ):
        for backend in BACKENDS:
            cf, cnt = compiled(lambda x: g(x) + 1, backend, fullgraph=True)
            try:
                out = cf(make())
                print(f"argument | {label:38s} | {backend:9s} | ok, graphs={cnt.frame_count}, {type(out).__name__}")
            except Exception as e:  # noqa: BLE001
                print(f"argument | {label:38s} | {backend:9s} | RAISES {short(e, 2)[:260]}")


def main() -> None:
    print(f"torch {torch.__version__}")
    for label, cls, build, read in CLASSES:
        construct(label, cls, build, read, registered=False)
    for label, cls, build, read in CLASSES:
        construct(label, cls, build, read, registered=True)
    argument()


if __name__ == "__main__":
    main()
