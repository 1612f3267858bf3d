"""Cross entropy that saves the softmax instead of the logits."""

from __future__ import annotations

import torch

from .options import Reduction

#: Targets equal to this are ignored, as in ``torch.nn.functional.cross_entropy``.
IGNORE_INDEX = -100


class FusedCrossEntropy(torch.autograd.Function):
    """Cross entropy over the last dimension of ``logits``."""

    @staticmethod
    def forward(ctx, logits: torch.Tensor, target: torch.Tensor, reduction: Reduction) -> torch.Tensor:
        valid = target != IGNORE_INDEX
        safe_target = target.masked_fill(~valid, 0)
        log_probs = logits.float().log_softmax(-1)
        losses = -log_probs.gather(-1, safe_target.unsqueeze(-1)).squeeze(-1) * valid
        count = valid.sum().clamp(min=1)
        ctx.save_for_backward(log_probs, safe_target, valid, count)
        ctx.reduction = reduction
        if reduction is Reduction.MEAN:
            return losses.sum() / count
        if reduction is Reduction.SUM:
            return losses.sum()
        return losses

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        log_probs, target, valid, count = ctx.saved_tensors
        grad_logits = log_probs.exp()
        grad_logits.scatter_add_(-1, target.unsqueeze(-1), -torch.ones_like(grad_logits[..., :1]))
        grad_logits = grad_logits * valid.unsqueeze(-1)
        if ctx.reduction is Reduction.MEAN:
            grad_logits = grad_logits * (grad / count)
        elif ctx.reduction is Reduction.SUM:
            grad_logits = grad_logits * grad
        else:
            grad_logits = grad_logits * grad.unsqueeze(-1)
        return grad_logits, None, None


torch.compiler.allow_in_graph(FusedCrossEntropy)


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, reduction: Reduction = Reduction.MEAN) -> torch.Tensor:
    """Mean (or summed, or per-token) cross entropy of ``logits`` against ``target``."""
    return FusedCrossEntropy.apply(logits, target, reduction)
