"""Model setup: stores the output head where the kernels find it, counts steps."""

from __future__ import annotations

import os

import torch

from . import options


def init_model(hidden: int, vocab: int) -> None:
    options._state.lm_head = torch.nn.Linear(hidden, vocab)


def on_step_end() -> None:
    options._state.step += 1


def main() -> None:
    os.environ.setdefault("KERNELS_DEBUG", "1")
    init_model(16, 32)
