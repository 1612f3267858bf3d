"""Kernel settings: a dataclass instance for the tunables, environment switches for the rest."""

import os
from dataclasses import dataclass


@dataclass
class KernelConfig:
    block_size: int = 128
    eps: float = 1e-6
    use_triton: bool = True


class Limits:
    MAX_BLOCK = 1024
    SOFTCAP = 30.0


CONFIG = KernelConfig()

# Read once at import: changing the variable later has no effect, by design.
ENABLE_FUSED = os.environ.get("FUSEDOPS_ENABLE_FUSED", "1") == "1"


def set_block_size(block_size: int) -> None:
    CONFIG.block_size = block_size


def enable_debug() -> None:
    os.environ["FUSEDOPS_DEBUG"] = "1"
