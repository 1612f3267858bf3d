"""The fused ops. Each is registered so that Dynamo keeps it as one call in the graph."""

import logging
import os
import time

import torch
import torch.nn.functional as F

from . import config
from .cache import tile_shape, workspace_bytes
from .config import CONFIG, ENABLE_FUSED, Limits

logger = logging.getLogger(__name__)


@torch.compiler.allow_in_graph
def fused_bias_gelu(x, bias):
    return F.gelu(x + bias, approximate="tanh")


@torch.compiler.allow_in_graph
def rms_norm(x, weight, eps: float = 1e-6):
    variance = x.pow(2).mean(-1, keepdim=True)
    return x * torch.rsqrt(variance + eps) * weight


@torch.compiler.allow_in_graph
def eps_norm(x, weight):
    return rms_norm(x, weight, CONFIG.eps)


@torch.compiler.allow_in_graph
def softcap(x, cap: float | None = None):
    cap = Limits.SOFTCAP if cap is None else cap
    return cap * torch.tanh(x / cap)


@torch.compiler.allow_in_graph
def masked_mean(x, mask):
    weights = mask.to(x.dtype)
    return (x * weights).sum(-1) / weights.sum(-1).clamp_min(1.0)


@torch.compiler.allow_in_graph
def blocked_softmax(x):
    block = CONFIG.block_size  # AIG302
    chunks = [F.softmax(part, dim=-1) for part in x.split(block, dim=0)]
    return torch.cat(chunks, dim=0)


@torch.compiler.allow_in_graph
def tiled_scale(x, scale):
    rows, cols = tile_shape(x.shape[-1])
    if workspace_bytes(rows, cols) > 1 << 20:
        return x * scale
    return (x.view(-1, rows, cols) * scale).view_as(x)


@torch.compiler.allow_in_graph
def gated_residual(x, gate):
    if ENABLE_FUSED and config.CONFIG.use_triton:
        return torch.addcmul(x, x, torch.sigmoid(gate))
    return x + x * torch.sigmoid(gate)


@torch.compiler.allow_in_graph
def debug_checked_add(x, y):
    if os.environ.get("FUSEDOPS_DEBUG") == "1":  # AIG302
        logger.debug("debug_checked_add: %s + %s", tuple(x.shape), tuple(y.shape))  # AIG501
    return x + y


@torch.compiler.allow_in_graph
def timed_matmul(a, b):
    start = time.perf_counter()
    out = a @ b
    return out, time.perf_counter() - start  # AIG202


def layer_scale(x, gamma):
    return x * gamma


def swish(x, beta: float = 1.0):
    return x * torch.sigmoid(beta * x)


def chunked_mean(x):
    chunks = x.split(CONFIG.block_size, dim=-1)  # AIG302
    return torch.stack([chunk.mean(-1) for chunk in chunks], dim=-1).mean(-1)


@torch.compiler.allow_in_graph
def dynamic_quantize(x):
    scale = x.abs().amax().item() / 127.0  # AIG502
    return torch.clamp(torch.round(x / scale), -127, 127).to(torch.int8), scale
