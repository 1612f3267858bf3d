"""A registered function that takes an autograd ``ctx`` and reads ``ctx.saved_tensors``.

The pattern AIG103 reports: an ``autograd.Function`` whose ``forward``/``backward``
hands its ``ctx`` to a helper registered with ``allow_in_graph``. Checks whether the
call goes into the graph, what Dynamo says, and whether results and gradients are
right on each backend.
"""

import torch

from _harness import BACKENDS, compiled, gb_summary, header, short


@torch.compiler.allow_in_graph
def scale_forward(ctx, x, w):
    ctx.save_for_backward(w)
    return x * w


@torch.compiler.allow_in_graph
def scale_backward(ctx, grad):
    (w,) = ctx.saved_tensors
    return grad * w


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        return scale_forward(ctx, x, w)

    @staticmethod
    def backward(ctx, grad):
        return scale_backward(ctx, grad), None


def main() -> None:
    header("autograd ctx passed to registered helpers")
    for backend in BACKENDS:
        x = torch.arange(4.0, requires_grad=True)
        w = torch.full((4,), 3.0)

        def f(x, w):
            return Scale.apply(x + 0, w) * 1

        cf, cnt = compiled(f, backend)
        try:
            out = cf(x, w)
            out.sum().backward()
            ok = torch.equal(out.detach(), torch.arange(4.0) * 3) and torch.equal(x.grad, torch.full((4,), 3.0))
            n_gb, reasons = gb_summary()
            print(f"[ctx helpers] backend={backend}: {'ok' if ok else 'WRONG'}, graphs={cnt.frame_count}, "
                  f"graph_breaks={n_gb}")
            for reason in reasons:
                print(f"    GB: {reason[:300]}")
        except Exception as e:  # noqa: BLE001
            print(f"[ctx helpers] backend={backend}: RAISES {short(e, 3)}")


if __name__ == "__main__":
    main()
