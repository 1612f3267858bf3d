"""``python examples/runtime_guard_demo.py``: a silent contract violation, then the guard naming it.

A registered function reads a module-level Python float. Compiled with Inductor, it
keeps using the value from compile time after the float changes (evidence/dynamo/
FINDINGS.md section S1b), with no warning. Under ``strict("warn")`` the same registration is
reported at once, with the static checker's code.
"""

from __future__ import annotations

import os
import warnings

os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")

import torch  # noqa: E402

import runtime_guard as rg  # noqa: E402

SCALE = 2.0


def scale(x: torch.Tensor) -> torch.Tensor:
    return x * SCALE


def set_scale(value: float) -> None:
    global SCALE
    SCALE = value


def main() -> int:
    global SCALE
    x = torch.arange(4.0)

    print("1. torch.compiler.allow_in_graph, compiled with inductor:")
    registered = torch.compiler.allow_in_graph(scale)
    compiled = torch.compile(lambda t: registered(t + 0) * 1, backend="inductor")
    print(f"   SCALE = 2.0 -> {compiled(x).tolist()}")
    set_scale(3.0)
    print(f"   SCALE = 3.0 -> {compiled(x).tolist()}   (eager gives {(x * 3.0).tolist()}: silently stale)")

    print("\n2. the same function under runtime_guard's strict mode:")
    torch._dynamo.reset()
    set_scale(2.0)
    with warnings.catch_warnings(record=True) as caught, rg.strict("warn"):
        warnings.simplefilter("always")
        rg.allow_in_graph(scale)
    for warning in caught:
        print(f"   {warning.category.__name__}: {warning.message}")
    found = [violation.code for violation in rg.registry.violations()]
    print(f"\n   registry.violations() codes: {found}")
    return 0 if "AIG302" in found else 1


if __name__ == "__main__":
    raise SystemExit(main())
