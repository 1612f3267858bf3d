"""Mixed-precision training kernels configured by a module of flags."""

from . import config
from .attention import attention_probs, check_positions, dropout_scores
from .losses import clamp_fp16, scale_loss, unscale_grads
from .norms import rms_norm, rms_norm_initial_scale
from .runtime import disable_fast_path

__all__ = [
    "attention_probs",
    "check_positions",
    "clamp_fp16",
    "config",
    "disable_fast_path",
    "dropout_scores",
    "rms_norm",
    "rms_norm_initial_scale",
    "scale_loss",
    "unscale_grads",
]
