"""Transformer blocks of the zoo."""

import torch
from torch import nn

from . import attention
from .attention import scaled_dot_product
from .compile_utils import maybe_allow_in_graph


@maybe_allow_in_graph
def swiglu(x, gate):
    return torch.nn.functional.silu(gate) * x


@maybe_allow_in_graph
def layer_norm_fp32(x, weight, bias, eps: float = 1e-5):
    out = torch.nn.functional.layer_norm(x.float(), x.shape[-1:], weight.float(), bias.float(), eps)
    return out.to(x.dtype)


class MLP(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(x)))


@maybe_allow_in_graph  # AIG402
class TransformerBlock(nn.Module):
    def __init__(self, dim: int, heads: int, causal: bool = False):
        super().__init__()
        self.heads = heads
        self.causal = causal
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm1 = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = MLP(dim, 4 * dim)

    def _split(self, x):
        b, n, _ = x.shape
        return x.view(b, n, self.heads, -1).transpose(1, 2)

    def forward(self, x):
        q, k, v = (self._split(t) for t in self.qkv(self.norm1(x)).chunk(3, dim=-1))
        if self.causal:
            out = attention.causal_attention(q, k, v)
        else:
            out = scaled_dot_product(q, k, v)
        x = x + self.proj(out.transpose(1, 2).flatten(2))
        return x + self.mlp(self.norm2(x))


class ScaledResidual(nn.Module):
    """A residual branch whose fused kernel is a bound method saved per instance."""

    def __init__(self, dim: int, alpha: float = 1.0):
        super().__init__()
        self.alpha = alpha
        self.branch = MLP(dim, dim)
        self._fused = torch.compiler.allow_in_graph(self._combine)

    def _combine(self, x, y):
        return x + self.alpha * y

    def forward(self, x):
        return self._fused(x, self.branch(x))
