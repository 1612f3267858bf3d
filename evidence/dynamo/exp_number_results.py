"""Python numbers made by calls, returned by an allow_in_graph function.

A registered g(x) returns (x * 2, <number>) inside a compiled f(x); the number is
float(x.sum()) (a tensor's data), x.sum().item(), time.time(), random.random(), or a
float of the argument's shape (control). Each is compiled under eager / aot_eager /
inductor with fullgraph False and True, called twice with different data; what the
second call returns for the number tells whether it was baked at compile time.
Run on torch 2.13.0 and 2.14.1 (CPU).
"""

from __future__ import annotations

import random
import time

import torch

from _harness import BACKENDS, compiled, gb_summary, short

aig = torch.compiler.allow_in_graph

CASES = {
    "float(x.sum())": aig(lambda x: (x * 2, float(x.sum()))),
    "int(x.sum())": aig(lambda x: (x * 2, int(x.sum()))),
    "x.sum().item()": aig(lambda x: (x * 2, x.sum().item())),
    "time.time()": aig(lambda x: (x * 2, time.time())),
    "random.random()": aig(lambda x: (x * 2, random.random())),
    "float(x.shape[0]) (control)": aig(lambda x: (x * 2, float(x.shape[0]))),
}


def main() -> None:
    print(f"torch {torch.__version__}")
    for label, g in CASES.items():
        for backend in BACKENDS:
            for fullgraph in (False, True):
                def f(x):
                    y, number = g(x)
                    return y + 1, number

                cf, cnt = compiled(f, backend, fullgraph=fullgraph)
                try:
                    first = cf(torch.ones(3))[1]
                    time.sleep(0.01)
                    second = cf(torch.full((3,), 5.0))[1]
                    live = f(torch.full((3,), 5.0))[1]
                    breaks, reasons = gb_summary()
                    # A clock or a random number changes on every call: the same value twice is baked.
                    changing = label.startswith(("time", "random"))
                    baked = "BAKED" if second == first and (changing or live != first) else "live"
                    why = f" | {reasons[0][:120]}" if reasons else ""
                    print(f"number | {label:28s} | {backend:9s} | fullgraph={fullgraph!s:5s} | first={first!r:.12} "
                          f"second={second!r:.12} uncompiled={live!r:.12} -> {baked}, graphs={cnt.frame_count}, GB={breaks}{why}")
                except Exception as e:  # noqa: BLE001
                    print(f"number | {label:28s} | {backend:9s} | fullgraph={fullgraph!s:5s} | RAISES {short(e, 2)[:220]}")


if __name__ == "__main__":
    main()
