"""Views of packed payloads as raw bytes.

``RawBits`` and ``ScaledActivation`` only tag tensors: they are bare subclasses with
no flatten protocol. Returning one from a registered function fails the first compiled
call ("Creating a new Tensor subclass ... already associated to a python object of
type FakeTensor", evidence S§11).
"""

from __future__ import annotations

import torch


class RawBits(torch.Tensor):
    """A tensor whose bytes are a packed payload, not numbers."""


class ScaledActivation(torch.Tensor):
    """An activation that was already multiplied by its scale."""


@torch.compiler.allow_in_graph
def view_as_raw_bits(x: torch.Tensor) -> torch.Tensor:
    """The bytes of ``x``, tagged so that kernels do not treat them as values."""
    return x.contiguous().view(torch.uint8).as_subclass(RawBits)  # AIG203


@torch.compiler.allow_in_graph
def prescale(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``x * scale``, tagged so that the next quantizer skips its own scaling."""
    return ScaledActivation(x * scale)  # AIG203


@torch.compiler.allow_in_graph
def raw_byte_count(bits: RawBits) -> torch.Tensor:
    """The payload size of ``bits``, as a tensor.

    A bare subclass as an *argument* was not measured (S§11 measured results, and
    traceable subclasses as arguments); no rule covers it, so this stays clean.
    """
    return torch.tensor(bits.numel(), device=bits.device)
