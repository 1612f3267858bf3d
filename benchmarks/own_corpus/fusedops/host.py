"""Ops that need the host: a histogram through numpy, and its custom-op counterpart."""

import numpy as np
import torch


@torch.compiler.allow_in_graph
def host_histogram(x, bins: int = 16):
    counts, _ = np.histogram(x.detach().cpu().numpy(), bins=bins)  # AIG503
    return torch.from_numpy(counts)


@torch.library.custom_op("fusedops::histogram", mutates_args=())
def histogram(x: torch.Tensor, bins: int) -> torch.Tensor:
    counts, _ = np.histogram(x.detach().cpu().numpy(), bins=bins)
    return torch.from_numpy(counts)


@histogram.register_fake
def _(x, bins):
    return x.new_empty(bins, dtype=torch.int64)
