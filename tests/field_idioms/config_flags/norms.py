"""RMS normalisation, fused or reference depending on ``config.USE_FAST_PATH``."""

from __future__ import annotations

import torch
import torch.nn.functional as F

import config_flags.config as cfg

from .config import LOSS_SCALE, NORM_EPS


@torch.compiler.allow_in_graph
def rms_norm(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """RMS normalisation over the last dimension."""
    if cfg.USE_FAST_PATH:  # AIG302
        return F.rms_norm(x, x.shape[-1:], weight, cfg.NORM_EPS)
    x32 = x.float()
    normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + NORM_EPS)
    return normed.to(x.dtype) * weight


@torch.compiler.allow_in_graph
def rms_norm_initial_scale(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """RMS normalisation scaled by the loss scale the process started with.

    ``LOSS_SCALE`` here is this module's own name, bound once by the ``from`` import:
    ``set_loss_scale`` rebinds ``config.LOSS_SCALE``, never this name, so compiled and
    eager calls read the same value (a setter that does not reach this function is a
    different bug, not the staleness of AIG302).
    """
    return F.rms_norm(x, x.shape[-1:], weight, NORM_EPS) * LOSS_SCALE
