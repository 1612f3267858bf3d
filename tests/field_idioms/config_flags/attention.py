"""Attention helpers that follow the precision settings."""

from __future__ import annotations

import torch
import torch.nn.functional as F

import config_flags.config
from config_flags import config


@torch.compiler.allow_in_graph
def attention_probs(scores: torch.Tensor) -> torch.Tensor:
    """Softmax over the keys, in float32 when ``UPCAST_SOFTMAX`` (never rebound) is set."""
    if config.UPCAST_SOFTMAX:
        return scores.float().softmax(-1).to(scores.dtype)
    return scores.softmax(-1)


@torch.compiler.allow_in_graph
def dropout_scores(probs: torch.Tensor, p: float) -> torch.Tensor:
    """Dropout on attention probabilities, off in deterministic mode."""
    if config.DETERMINISTIC:  # AIG302
        return probs
    return F.dropout(probs, p)


@torch.compiler.allow_in_graph
def check_positions(position_ids: torch.Tensor) -> torch.Tensor:
    """Position ids, after checking the sequence fits the tables."""
    if position_ids.shape[-1] > config_flags.config.MAX_POSITIONS:
        raise ValueError(f"check_positions: sequences are limited to {config_flags.config.MAX_POSITIONS} tokens")
    return position_ids
