"""Attention and rotary kernels of the model."""

import os

import torch
import torch.nn.functional as F

from tinylm import config


def rotary_tables(seq_len: int, dim: int, device=None):
    inv_freq = 1.0 / (config.ROPE_THETA ** (torch.arange(0, dim, 2, device=device).float() / dim))
    freqs = torch.outer(torch.arange(seq_len, device=device).float(), inv_freq)
    return freqs.cos(), freqs.sin()


@torch.compiler.allow_in_graph
def rotary(x, cos, sin):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


@torch.compiler.allow_in_graph
def attention(q, k, v):
    if config.USE_FLASH:  # AIG302
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    scores = (q @ k.transpose(-2, -1)) / q.shape[-1] ** 0.5
    causal = torch.ones(scores.shape[-2:], dtype=torch.bool, device=q.device).tril()
    return scores.masked_fill(~causal, float("-inf")).softmax(-1) @ v


@torch.compiler.allow_in_graph
def repeat_kv(x, n_rep: int):
    if n_rep == 1 or os.environ.get("TINYLM_NO_GQA"):
        return x
    b, h, n, d = x.shape
    return x[:, :, None].expand(b, h, n_rep, n, d).reshape(b, h * n_rep, n, d)


@torch.compiler.allow_in_graph
def silu_and_mul(x):
    gate, up = x.chunk(2, dim=-1)
    return F.silu(gate) * up


@torch.compiler.allow_in_graph
def sample_top_k(logits, k: int, temperature: float = 1.0):
    values, indices = torch.topk(logits / temperature, k, dim=-1)
    choice = torch.multinomial(values.softmax(-1), num_samples=1)
    return indices.gather(-1, choice)


def rope_theta() -> float:
    return config.ROPE_THETA
