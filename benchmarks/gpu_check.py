"""Exercise the aigcheck backend and the guard on CUDA tensors (Triton kernels).

Run: ``python benchmarks/gpu_check.py``. Without a CUDA device it prints
``no CUDA device`` and exits 0.
"""

from __future__ import annotations

import sys
import warnings

import torch
import torch._dynamo

import runtime_guard as rg
from runtime_guard import backend as aig


def main() -> int:
    if not torch.cuda.is_available():
        print("no CUDA device")
        return 0
    device = torch.device("cuda")
    print(f"device: {torch.cuda.get_device_name(device)}  torch {torch.__version__}")
    failures = 0

    def helper(x, y):
        return torch.relu(x) * y + 1

    torch.compiler.allow_in_graph(helper)

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(64, 64)

        def forward(self, x):
            return helper(self.lin(x), x).sum(-1)

    model = Model().to(device)
    x = torch.randn(32, 64, device=device)
    for dynamic in (False, True):
        torch._dynamo.reset()
        with torch.no_grad():
            expected = torch.compile(model, backend="inductor", dynamic=dynamic)(x)
            torch._dynamo.reset()
            got = torch.compile(model, backend="aigcheck", dynamic=dynamic)(x)
        ok = torch.allclose(got, expected, atol=1e-4, rtol=1e-4)
        report = aig.last_report()
        print(f"model dynamic={dynamic}: match={ok} calls={[c.function for c in report.calls] if report else None}")
        failures += not ok

    def baked(x):
        return x + 1, 0.5

    torch.compiler.allow_in_graph(baked)
    torch._dynamo.reset()
    rg.registry.clear_violations()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.compile(lambda t: baked(t)[0] * 2, backend="aigcheck")(torch.ones(8, device=device))
    found = [v.code for v in rg.registry.violations()]
    print(f"baked float on cuda: violations={found}")
    failures += found != ["AIG202"]

    def clean(x, y):
        return x * y + 1, x - y

    try:
        report = rg.check_allow_in_graph(
            clean, torch.randn(16, device=device, requires_grad=True), torch.randn(16, device=device)
        )
        print(f"check_allow_in_graph on cuda: ok ({len(report.results)} runs)")
    except rg.ContractViolation as error:
        print(f"check_allow_in_graph on cuda FAILED:\n{error}")
        failures += 1
    print("PASS" if not failures else f"FAIL ({failures})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
