"""Switches applied when the process starts (command-line options, environment)."""

from __future__ import annotations

import os

from . import config


def disable_fast_path() -> None:
    """Run the reference kernels, for debugging numerics."""
    config.USE_FAST_PATH = False


def apply_environment() -> None:
    """Honour ``MPK_DISABLE_FAST_PATH=1``."""
    if os.environ.get("MPK_DISABLE_FAST_PATH") == "1":
        disable_fast_path()
