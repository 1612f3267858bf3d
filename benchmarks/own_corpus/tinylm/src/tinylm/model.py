"""The model: embeddings, decoder layers and a head."""

import torch
from torch import nn

from .kernels import attention, rotary, rotary_tables


class DecoderLayer(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        self.norm = nn.RMSNorm(dim)

    def forward(self, x, cos, sin):
        b, n, d = x.shape
        q, k, v = self.qkv(self.norm(x)).view(b, n, 3, self.heads, -1).transpose(1, 3).unbind(2)
        q, k = rotary(q, cos, sin), rotary(k, cos, sin)
        return x + self.out(attention(q, k, v).transpose(1, 2).reshape(b, n, d))


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 256, dim: int = 64, heads: int = 4, layers: int = 2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(DecoderLayer(dim, heads) for _ in range(layers))
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head_dim = dim // heads

    def forward(self, tokens):
        torch.compiler.allow_in_graph(rotary)  # AIG404
        cos, sin = rotary_tables(tokens.shape[-1], self.head_dim, tokens.device)
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.head(x)
