"""Helpers for the test suites of projects that use these kernels."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import config_flags.config as cfg


def enable_deterministic_kernels() -> None:
    """Make the kernels reproducible bit for bit (no dropout, no atomics)."""
    cfg.DETERMINISTIC = True


@contextlib.contextmanager
def loss_scale(value: float) -> Iterator[None]:
    """Use ``value`` as the loss scale inside the block."""
    previous = cfg.LOSS_SCALE
    cfg.set_loss_scale(value)
    try:
        yield
    finally:
        cfg.set_loss_scale(previous)
