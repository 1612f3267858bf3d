"""Run the claims the markers rest on where the evidence does not measure them directly.

Not a test: ``.venv/bin/python tests/field_idioms/measure.py`` compiles a few calls
of the packages here under ``eager`` and ``aot_eager`` (fullgraph) and prints one line
per case; README.md quotes the output. About 20 s of CPU.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import torch
import torch._dynamo
from torch._dynamo import trace_rules
from torch._dynamo.testing import CompileCounterWithBackend

sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.filterwarnings("ignore")

import autograd_functions as af  # noqa: E402
import config_flags  # noqa: E402
import kernel_loader  # noqa: E402
import quantization_lib as q  # noqa: E402
from backend_registry import ops as backend_ops  # noqa: E402
from config_flags import attention, losses, norms, testing  # noqa: E402
from kernel_loader import ops as kernel_ops  # noqa: E402
from quantization_lib import raw_bits, spec  # noqa: E402
from registration_forms import decorated, imported, raw, use_tanh_gelu  # noqa: E402

BACKENDS = ("eager", "aot_eager")


def compiled(name: str, fn: Callable[..., torch.Tensor], *args: object, backward: bool = False) -> None:
    """One graph, same result (and gradient of the first argument) as the uncompiled call?"""
    for backend in BACKENDS:
        torch._dynamo.reset()
        counter = CompileCounterWithBackend(backend)
        try:
            mine = [
                a.detach().clone().requires_grad_(a.requires_grad) if isinstance(a, torch.Tensor) else a for a in args
            ]
            got = torch.compile(fn, backend=counter, fullgraph=True)(*mine)
            want_args = [
                a.detach().clone().requires_grad_(a.requires_grad) if isinstance(a, torch.Tensor) else a for a in args
            ]
            want = fn(*want_args)
            same = torch.allclose(got, want, atol=1e-5)
            if backward:
                got.sum().backward()
                want.sum().backward()
                same = same and torch.allclose(mine[0].grad, want_args[0].grad, atol=1e-5)
            print(f"{name:52} {backend:9} {'ok' if same else 'WRONG'}, {counter.frame_count} graph(s)")
        except Exception as error:  # the first line of what torch raises is the result
            print(f"{name:52} {backend:9} RAISES {type(error).__name__}: {str(error).splitlines()[0][:90]}")


def live_or_stale(
    name: str, fn: Callable[..., torch.Tensor], change: Callable[[], None], undo: Callable[[], None], *args: object
) -> None:
    """Compile, change the state, call again: does the compiled call see the change?"""
    for backend in BACKENDS:
        torch._dynamo.reset()
        undo()
        run = torch.compile(fn, backend=backend)
        run(*args)
        change()
        verdict = "live" if torch.allclose(run(*args), fn(*args)) else "STALE"
        undo()
        print(f"{name:52} {backend:9} {verdict}")


def main() -> None:
    x = torch.randn(4, 128)
    f8 = q.quantize_fp8(x)
    compiled(
        "quantize_fp8 -> dequantize_fp8 (wrapper subclass)", lambda x: q.dequantize_fp8(q.quantize_fp8(x + 0)) + 1, x
    )
    compiled(
        "Float8Tensor(...) with the class registered",
        lambda d, s: q.dequantize_fp8(q.Float8Tensor(d, s * 1, torch.float32)) * 1,
        f8._data,
        f8._scale,
    )
    compiled("view_as_raw_bits (bare subclass result)", lambda x: raw_bits.view_as_raw_bits(x + 0).float(), x)
    compiled("prescale (bare subclass result)", lambda x: raw_bits.prescale(x + 0, torch.tensor(2.0)) * 1, x)
    compiled("QuantizationSpec registered (plain class)", lambda x: x * spec.QuantizationSpec(torch.int8).block_size, x)
    layer = q.Int4Linear(torch.randint(0, 255, (8, 64), dtype=torch.uint8), torch.rand(8, 1))
    compiled("Int4Linear (nn.Parameter subclass argument)", lambda x: layer(x + 0) * 1, torch.randn(4, 128))
    compiled("rms_norm_rows (memo caches)", lambda x, w: backend_ops.rms_norm_rows(x + 0, w) * 1, x, torch.ones(128))
    compiled("rms_norm (kernel table)", lambda x, w: backend_ops.rms_norm(x + 0, w) * 1, x, torch.ones(128))
    compiled("swiglu (import fallback def)", lambda x: kernel_loader.swiglu(x + 0) * 1, x)
    compiled(
        "apply_rotary (if HAS_TRITON ... else def)",
        lambda x, c, s: kernel_loader.apply_rotary(x + 0, c, s) * 1,
        x,
        torch.rand(4, 64),
        torch.rand(4, 64),
    )
    codes = torch.randint(0, 16, (4, 32), dtype=torch.uint8)
    compiled(
        "dequantize_fp4_blocks (custom op, table in impl)",
        lambda c, s: kernel_ops.dequantize_fp4_blocks(c, s + 0) * 1,
        codes,
        torch.rand(4, 2),
    )
    compiled("scale_rows (library.define / impl)", lambda x, s: kernel_ops.scale_rows(x + 0, s) * 1, x, torch.rand(4))
    bad = codes.clone()
    bad[0, 0] = 200
    for backend in BACKENDS:
        torch._dynamo.reset()
        kernel_ops.set_debug_checks(False)
        run = torch.compile(lambda c, s: kernel_ops.dequantize_fp4_blocks(c, s + 0) * 1, backend=backend)
        run(codes, torch.rand(4, 2))
        kernel_ops.set_debug_checks(True)
        try:
            run(bad, torch.rand(4, 2))
            verdict = "STALE (the switch is not seen)"
        except ValueError:
            verdict = "live (the custom op raised)"
        kernel_ops.set_debug_checks(False)
        print(f"{'custom op reads _DEBUG, switched after compiling':52} {backend:9} {verdict}")
    grad = torch.randn(4, 8, requires_grad=True)
    compiled(
        "Softcap (NamedTuple argument)",
        lambda x: af.Softcap.apply(x * 1, af.SoftcapConfig(5.0, True)) * 1,
        grad,
        backward=True,
    )
    target = torch.tensor([1, 2, -100, 3])
    compiled(
        "FusedCrossEntropy (Enum argument)",
        lambda x, t: af.FusedCrossEntropy.apply(x * 1, t, af.Reduction.MEAN) * 1,
        grad,
        target,
        backward=True,
    )
    compiled(
        "FakeQuantize (frozen dataclass argument)",
        lambda x, s: af.FakeQuantize.apply(x * 1, s, af.FakeQuantSpec()) * 1,
        grad,
        torch.tensor(0.05),
        backward=True,
    )
    compiled(
        "ScaledGelu (setup_context style, float argument)",
        lambda x: af.ScaledGelu.apply(x * 1, 2.0) * 1,
        grad,
        backward=True,
    )
    xb = torch.randn(4, 8)
    live_or_stale(
        "scale_loss after set_loss_scale",
        lambda x: losses.scale_loss(x + 0) * 1,
        lambda: config_flags.config.set_loss_scale(4.0),
        lambda: config_flags.config.set_loss_scale(1.0),
        xb,
    )
    live_or_stale(
        "rms_norm_initial_scale after set_loss_scale",
        lambda x, w: norms.rms_norm_initial_scale(x + 0, w) * 1,
        lambda: config_flags.config.set_loss_scale(4.0),
        lambda: config_flags.config.set_loss_scale(1.0),
        xb,
        torch.ones(8),
    )
    live_or_stale(
        "dropout_scores after enable_deterministic_kernels",
        lambda p: attention.dropout_scores(p + 0, 0.5).sum() + p.sum(),
        testing.enable_deterministic_kernels,
        lambda: setattr(config_flags.config, "DETERMINISTIC", False),
        torch.ones(64, 64),
    )
    live_or_stale(
        "bias_gelu_public after use_tanh_gelu",
        lambda x, b: decorated.bias_gelu_public(x + 0, b) * 1,
        use_tanh_gelu,
        lambda: use_tanh_gelu(False),
        xb,
        torch.randn(8),
    )
    live_or_stale(
        "bias_gelu_imported after use_tanh_gelu",
        lambda x, b: imported.bias_gelu_imported(x + 0, b) * 1,
        use_tanh_gelu,
        lambda: use_tanh_gelu(False),
        xb,
        torch.randn(8),
    )
    for name in ("bias_gelu_imported", "bias_gelu_attr", "bias_gelu_unregistered"):
        registered = id(getattr(raw, name)) in trace_rules._allowed_callable_ids
        print(f"{'raw.' + name + ' registered with Dynamo':52} {'':9} {registered}")


if __name__ == "__main__":
    main()
